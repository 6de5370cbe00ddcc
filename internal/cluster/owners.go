package cluster

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/nats-io/nats.go/jetstream"
)

// claimTimeout bounds the write of a claim: an agent waits for it before its welcome.
const claimTimeout = 3 * time.Second

// Claim records in the ownership bucket that this replica holds agentID's link (the acceptor
// calls it before it welcomes the agent). The bucket's revision orders the claims of every
// replica: another replica holding an older link of the agent sees this claim and drops that
// link. Without NATS there is no claim and the agent is refused: it retries, here or elsewhere.
func (n *Node) Claim(ctx context.Context, agentID string, linkID uint64) error {
	if err := n.reachable("recording which replica holds the agent's link"); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, claimTimeout)
	defer cancel()
	rev, err := n.owners.Put(ctx, agentID, []byte(n.cfg.Replica+" "+strconv.FormatUint(linkID, 10)))
	if err != nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "recording which replica holds the agent's link: %v", n.natsError(err, "the ownership bucket"))
	}
	n.mu.Lock()
	n.claims[agentID] = claim{link: linkID, revision: rev}
	n.mu.Unlock()
	n.announceNow()
	return nil
}

// Release drops this replica's claim of agentID's link linkID as the link ends, unless a newer
// claim replaced it.
func (n *Node) Release(agentID string, linkID uint64) {
	n.mu.Lock()
	c, ok := n.claims[agentID]
	if ok && c.link == linkID {
		delete(n.claims, agentID)
	}
	n.mu.Unlock()
	if !ok || c.link != linkID {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
	defer cancel()
	// Only if still ours: a newer claim by another replica stays.
	if err := n.owners.Delete(ctx, agentID, jetstream.LastRevision(c.revision)); err != nil && n.nc.IsConnected() {
		n.log.Debug("releasing an agent's claim", "agent_id", agentID, "err", err)
	}
	n.announceNow()
}

// watchOwners fences this replica's links: a claim of one of its agents by another replica,
// newer than its own, closes its link of that agent. It follows the bucket until ctx ends,
// watching again after NATS comes back.
func (n *Node) watchOwners(ctx context.Context) {
	for ctx.Err() == nil {
		var w jetstream.KeyWatcher
		err := n.reachable("watching the ownership bucket")
		if err == nil {
			// Not while NATS is away: the library would wait for its JetStream timeout.
			w, err = n.owners.WatchAll(ctx, jetstream.UpdatesOnly())
		}
		if err != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
				continue
			}
		}
		n.followOwners(ctx, w)
		w.Stop()
	}
}

func (n *Node) followOwners(ctx context.Context, w jetstream.KeyWatcher) {
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-w.Updates():
			if !ok {
				return
			}
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			replica, _, _ := strings.Cut(string(e.Value()), " ")
			if replica == n.cfg.Replica {
				continue
			}
			n.fence(e.Key(), replica, e.Revision())
		}
	}
}

// fence closes this replica's link of agentID if replica's claim at revision is newer.
func (n *Node) fence(agentID, replica string, revision uint64) {
	n.mu.Lock()
	c, ok := n.claims[agentID]
	if ok && c.revision < revision {
		delete(n.claims, agentID)
	}
	n.mu.Unlock()
	if !ok || c.revision >= revision {
		return
	}
	n.log.Info("agent linked to another replica: closing the link here", "agent_id", agentID, "other", replica)
	if ap := n.agents.Load(); ap != nil {
		(*ap).Fence(agentID, c.link, fmt.Sprintf("linked to replica %s now", replica))
	}
	n.announceNow()
}
