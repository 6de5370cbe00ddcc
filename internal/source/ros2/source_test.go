//go:build ros2

package ros2

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door/doortest"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rostest"
	"github.com/fleetgate/fleetgate/internal/source/ros2/ros2test"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

type presence struct {
	mu     sync.Mutex
	online map[string]fleet.Robot
}

func (p *presence) Online(_ context.Context, r fleet.Robot) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.online[r.Info().Name] = r
	return nil
}

func (p *presence) Offline(r fleet.Robot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.online, r.Info().Name)
}

func (p *presence) robot(name string) fleet.Robot {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.online[name]
}

// The source in this process (under the race detector when tests run with -race) against the
// Fast DDS peer: the robot comes online, its streams are read and written concurrently, and
// it goes offline when the peer stops.
func TestSourceWithPeer(t *testing.T) {
	if !ros2test.InNetns(t) {
		return
	}
	peers := ros2test.Build(t)
	peer := ros2test.Start(t, peers.FastDDS, "--domain", "9", "--image-hz", "20", "--image-bytes", "10000", "--cloud-hz", "0")
	pres := &presence{online: map[string]fleet.Robot{}}
	src, err := Start(context.Background(), Config{Domain: 9, Name: "bot", DataDir: t.TempDir(), Presence: pres,
		Logger: slog.New(slog.DiscardHandler), Linger: 200 * time.Millisecond, OfflineAfter: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rostest.Eventually(t, 20*time.Second, "the robot is online", func() bool { return pres.robot("bot") != nil })
	r := pres.robot("bot")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rostest.Eventually(t, 10*time.Second, "the robot lists its topics", func() bool {
		st, err := r.Streams(ctx)
		return err == nil && len(st) >= 6
	})
	var wg sync.WaitGroup
	for range 4 { // readers of two topics coming and going, a writer, the KPI hub
		wg.Go(func() {
			for range 5 {
				sub, err := r.Subscribe(ctx, fleetgate.StreamKey{Name: "/camera/image/compressed", Source: fleetgate.SourceROS2}, fleetgate.SubscribeOptions{})
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := sub.Next(ctx); err != nil {
					t.Error(err)
				}
				sub.Close()
				if _, err := r.Read(ctx, fleetgate.StreamKey{Name: "/odom", Source: fleetgate.SourceROS2}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Go(func() {
		b, _ := proto.Marshal(&catalogpb.Twist{Linear: &catalogpb.Vector3{X: 0.1}})
		for range 20 {
			if err := doortest.Send(ctx, r, fleetgate.StreamKey{Name: "/cmd_vel", Source: fleetgate.SourceROS2}, "Platform.Messages.geometry_msgs.Twist", b); err != nil {
				t.Error(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	wg.Go(func() {
		for range 10 {
			if _, err := r.KPIs(ctx); err != nil {
				t.Error(err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	wg.Wait()
	peer.Wait(t, "cmd_vel 0.1", 5*time.Second)
	sub, err := r.Subscribe(ctx, fleetgate.StreamKey{Name: "/odom", Source: fleetgate.SourceROS2}, fleetgate.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	peer.Stop()
	rostest.Eventually(t, 10*time.Second, "the robot is offline", func() bool { return pres.robot("bot") == nil })
	select {
	case <-sub.Done():
	case <-ctx.Done():
		t.Fatal("a subscription outlived its robot")
	}
	if _, err := r.Streams(ctx); err == nil {
		t.Error("an offline robot lists streams")
	}
}
