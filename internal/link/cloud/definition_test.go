package cloud_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/link"
)

// describingRobot gives the definitions of the types outside the catalog it lists, as a ROS 1
// robot gives its publishers' message_definition, and counts the times it is asked.
type describingRobot struct {
	*fleettest.Robot
	asked *atomic.Int32
}

const accelDefinition = "Vector3  linear\nVector3  angular\n"

func (r describingRobot) MessageDefinition(_ context.Context, key fleetgate.StreamKey) (string, string, error) {
	r.asked.Add(1)
	switch key.Name {
	case "/accel", "/accel2":
		return "ros1msg", accelDefinition, nil
	case "/huge":
		return "ros1msg", strings.Repeat("int8 x\n", link.MaxDefinitionBytes/7+1), nil
	}
	return "", "", fleetgate.Errorf(fleetgate.ENotFound, "no publisher of %s has sent its definition yet", key.Name)
}

// TestDefinitionOverTheLink: the cloud asks the agent for the definition of the type of an
// output stream outside the catalog, once per type for the link's session; a definition over
// link.MaxDefinitionBytes is refused, and a robot whose source gives none has none.
func TestDefinitionOverTheLink(t *testing.T) {
	w := newWorld(t)
	one := scriptedRobot(idOne, "one")
	for _, s := range []struct{ name, typ string }{{"/accel", "geometry_msgs/Accel"}, {"/accel2", "geometry_msgs/Accel"},
		{"/huge", "big_msgs/Huge"}, {"/quiet", "quiet_msgs/Quiet"}} {
		one.StreamList = append(one.StreamList, fleetgate.Stream{Name: s.name, Type: s.typ, Direction: fleetgate.Output, Source: fleetgate.SourceROS1})
	}
	two := scriptedRobot(idTwo, "two")
	two.StreamList = append(two.StreamList, fleetgate.Stream{Name: "/accel", Type: "geometry_msgs/Accel", Direction: fleetgate.Output, Source: fleetgate.SourceROS1})
	asked := &atomic.Int32{}
	w.startAgent("fga_alpha", describingRobot{one, asked}, two)
	w.waitOnline(idOne, true, 5*time.Second)
	w.waitOnline(idTwo, true, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	remote, ok := fleet.As[fleet.MessageDefinitions](w.remote(idOne))
	if !ok {
		t.Fatal("a robot behind the link gives no definitions")
	}
	key := func(name string) fleetgate.StreamKey {
		return fleetgate.StreamKey{Name: name, Source: fleetgate.SourceROS1}
	}
	for _, name := range []string{"/accel", "/accel", "/accel2"} {
		enc, def, err := remote.MessageDefinition(ctx, key(name))
		if err != nil || enc != "ros1msg" || def != accelDefinition {
			t.Fatalf("definition of %s over the link: %q %q, %v", name, enc, def, err)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("the agent was asked %d times for one type; want once, then the cache", n)
	}
	if _, _, err := remote.MessageDefinition(ctx, key("/huge")); !fleetgate.Is(err, fleetgate.ETooLarge) {
		t.Errorf("a definition over %d bytes: %v", link.MaxDefinitionBytes, err)
	}
	if _, _, err := remote.MessageDefinition(ctx, key("/quiet")); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("a definition not known yet: %v", err)
	}
	if _, _, err := remote.MessageDefinition(ctx, key("/nope")); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("a stream the robot does not list: %v", err)
	}
	other, _ := fleet.As[fleet.MessageDefinitions](w.remote(idTwo))
	if _, _, err := other.MessageDefinition(ctx, key("/accel")); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("a robot that knows no definitions: %v", err)
	}
}
