package teleop

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestAcquireRaceHasOneWinner(t *testing.T) {
	clock := newFakeClock()
	controls := NewControls(clock)
	target := Target{RobotID: "r1", Source: 1, Component: "base", Stream: "cmd_vel"}

	const n = 100
	type result struct {
		lease  *Lease
		holder Owner
		ok     bool
	}
	results := make([]result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start // all 100 call Acquire at once
			lease, holder, ok := controls.Acquire(target, fmt.Sprintf("socket-%d", i), fmt.Sprintf("user%d@example.com", i))
			results[i] = result{lease, holder, ok}
		})
	}
	close(start)
	wg.Wait()

	var winners []int
	for i, r := range results {
		if r.ok {
			winners = append(winners, i)
		}
	}
	if len(winners) != 1 {
		t.Fatalf("%d winners, want exactly 1: %v", len(winners), winners)
	}
	w := results[winners[0]]
	want := Owner{SocketID: fmt.Sprintf("socket-%d", winners[0]), User: fmt.Sprintf("user%d@example.com", winners[0]), Since: clock.Now()}
	if w.holder != want || w.lease.Owner() != want || w.lease.Target() != target {
		t.Fatalf("winner got owner %+v, lease %+v on %+v; want %+v on %+v", w.holder, w.lease.Owner(), w.lease.Target(), want, target)
	}
	for i, r := range results {
		if r.ok {
			continue
		}
		if r.lease != nil || r.holder != want {
			t.Fatalf("loser %d got lease %v, holder %+v; want no lease and holder %+v", i, r.lease, r.holder, want)
		}
	}

	// Released, the target can be taken again; a second Release of the old lease is harmless
	// and does not free the new holder's target.
	clock.Advance(time.Minute)
	w.lease.Release()
	again, owner, ok := controls.Acquire(target, "socket-new", "new@example.com")
	if !ok || owner.SocketID != "socket-new" || !owner.Since.Equal(clock.Now()) {
		t.Fatalf("Acquire after Release = %+v, %v; want socket-new since %v", owner, ok, clock.Now())
	}
	w.lease.Release()
	if _, holder, ok := controls.Acquire(target, "socket-x", "x@example.com"); ok || holder.SocketID != "socket-new" {
		t.Fatalf("after a stale Release, Acquire = %+v, %v; want refused, held by socket-new", holder, ok)
	}
	again.Release()
	again.Release()
	if held := controls.Held("r1"); len(held) != 0 {
		t.Fatalf("Held after every Release = %+v, want none", held)
	}
}

func TestControlsTargetsAreIndependent(t *testing.T) {
	clock := newFakeClock()
	controls := NewControls(clock)
	t0 := clock.Now()
	base := Target{RobotID: "r1", Source: 1, Component: "base", Stream: "cmd_vel"}
	// Each differs from base in one part, so each is a target of its own.
	targets := []Target{
		base,
		{RobotID: "r1", Source: 2, Component: "base", Stream: "cmd_vel"},
		{RobotID: "r1", Source: 1, Component: "arm", Stream: "cmd_vel"},
		{RobotID: "r1", Source: 1, Component: "base", Stream: "drive"},
		{RobotID: "r2", Source: 1, Component: "base", Stream: "cmd_vel"},
	}
	for i, tg := range targets {
		clock.Advance(time.Second)
		if _, _, ok := controls.Acquire(tg, fmt.Sprintf("s%d", i), fmt.Sprintf("u%d@example.com", i)); !ok {
			t.Fatalf("Acquire %+v refused, want it independent of the others", tg)
		}
	}
	got := controls.Held("r1")
	owner := func(i int) Owner {
		return Owner{SocketID: fmt.Sprintf("s%d", i), User: fmt.Sprintf("u%d@example.com", i), Since: t0.Add(time.Duration(i+1) * time.Second)}
	}
	want := []Held{ // sorted by component, stream, source
		{targets[2], owner(2)},
		{targets[0], owner(0)},
		{targets[1], owner(1)},
		{targets[3], owner(3)},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Held(r1) = %+v\nwant %+v", got, want)
	}
	if got := controls.Held("r2"); !slices.Equal(got, []Held{{targets[4], owner(4)}}) {
		t.Fatalf("Held(r2) = %+v", got)
	}
	if got := controls.Held("r3"); len(got) != 0 {
		t.Fatalf("Held(r3) = %+v, want none", got)
	}
}
