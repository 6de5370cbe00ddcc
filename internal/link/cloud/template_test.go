package cloud_test

import (
	"context"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
)

// definingRobot knows the definition of a type outside the catalog that it lists, as a ROS 1
// robot knows rosgraph_msgs/Log from its publisher.
type definingRobot struct{ *fleettest.Robot }

const logTemplate = `{"header":{"seq":0,"stamp":{"secs":0,"nsecs":0},"frame_id":""},"level":0,"name":"","msg":"","file":"","function":"","line":0,"topics":[]}`

func (r definingRobot) MessageTemplate(_ context.Context, messageType string) ([]byte, error) {
	if messageType == "rosgraph_msgs/Log" {
		return []byte(logTemplate), nil
	}
	return nil, fleetgate.Errorf(fleetgate.ENotFound, "no topic of type %s", messageType)
}

// TestTemplateOverTheLink: the cloud asks the agent for the template of a type its robot
// lists outside the catalog; a type the robot does not list, or a robot whose source knows
// no definitions, has none.
func TestTemplateOverTheLink(t *testing.T) {
	w := newWorld(t)
	one := scriptedRobot(idOne, "one")
	one.StreamList = append(one.StreamList, fleetgate.Stream{Name: "/rosout", Type: "rosgraph_msgs/Log", Direction: fleetgate.Output, Source: fleetgate.SourceROS1})
	two := scriptedRobot(idTwo, "two")
	two.StreamList = append(two.StreamList, fleetgate.Stream{Name: "/rosout", Type: "rosgraph_msgs/Log", Direction: fleetgate.Output, Source: fleetgate.SourceROS1})
	w.startAgent("fga_alpha", definingRobot{one}, two)
	w.waitOnline(idOne, true, 5*time.Second)
	w.waitOnline(idTwo, true, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	remote, ok := fleet.As[fleet.MessageTemplates](w.remote(idOne))
	if !ok {
		t.Fatal("a robot behind the link gives no templates")
	}
	got, err := remote.MessageTemplate(ctx, "rosgraph_msgs/Log")
	if err != nil || string(got) != logTemplate {
		t.Fatalf("template over the link: %s, %v", got, err)
	}
	if _, err := remote.MessageTemplate(ctx, "custom_msgs/Nope"); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("a type the robot does not list: %v", err)
	}
	other, _ := fleet.As[fleet.MessageTemplates](w.remote(idTwo))
	if _, err := other.MessageTemplate(ctx, "rosgraph_msgs/Log"); !fleetgate.Is(err, fleetgate.ENotFound) {
		t.Errorf("a robot that knows no definitions: %v", err)
	}
}
