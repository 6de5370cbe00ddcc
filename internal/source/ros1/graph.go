package ros1

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rosnode"
	"github.com/fleetgate/fleetgate/internal/source/rosgraph"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
)

// inputLinger: a command younger than this reaches a subscriber that connects after it (see
// rosnode.PublishOptions.Linger); older ones have been replaced by the deadman's zero.
const inputLinger = time.Second

// graph is the robot's transport (rosgraph.Transport): the master's topic list, read at most
// every period and only when someone asks, and the node's TCPROS subscriptions and publishers.
type graph struct {
	node   *rosnode.Node
	log    *slog.Logger
	period time.Duration
	now    func() time.Time // the clock of the list's age

	refresh sync.Mutex // one topic-list read at a time

	mu     sync.Mutex
	topics map[string]rosgraph.Topic // the last topic list
	at     time.Time                 // when it was read; zero: never
	nodes  []string                  // the graph's nodes but ours, sorted
	// definitions are the message_definition the first publisher of each opaque topic sent
	// (by topic and type): what a recorder stores as its schema (MessageDefinition).
	definitions map[[2]string]string
}

var (
	_ rosgraph.Transport  = (*graph)(nil)
	_ rosgraph.NodeLister = (*graph)(nil)
)

// forget has the next call read the topic list afresh (a new master knows other topics).
func (g *graph) forget() {
	g.mu.Lock()
	g.at = time.Time{}
	g.mu.Unlock()
}

// forgetDefinitions drops the publishers' definitions: the ones that come back may differ.
func (g *graph) forgetDefinitions() {
	g.mu.Lock()
	g.definitions = nil
	g.mu.Unlock()
}

// Topics returns the topic list, read again when older than the period: the master is asked
// at most every period, and only while someone asks. A failed read keeps the last list.
func (g *graph) Topics(ctx context.Context) (map[string]rosgraph.Topic, error) {
	g.mu.Lock()
	topics, at := g.topics, g.at
	g.mu.Unlock()
	if !at.IsZero() && g.now().Sub(at) < g.period {
		return topics, nil
	}
	g.refresh.Lock()
	defer g.refresh.Unlock()
	g.mu.Lock()
	topics, at = g.topics, g.at
	g.mu.Unlock()
	if !at.IsZero() && g.now().Sub(at) < g.period {
		return topics, nil // read by the caller we waited for
	}
	fresh, nodes, err := g.read(ctx)
	if err != nil {
		if topics != nil {
			g.log.Debug("reading the ROS graph; keeping the last list", "err", err)
			return topics, nil
		}
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "reading the topics of the ROS master: %v", err)
	}
	g.mu.Lock()
	g.topics, g.at, g.nodes = fresh, g.now(), nodes
	g.mu.Unlock()
	return fresh, nil
}

// Nodes are the graph's nodes of the last topic list, but ours.
func (g *graph) Nodes() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.nodes)
}

// read lists the master's topics. A topic another node publishes is an output; one that only
// others subscribe to (or that only we publish) is an input. Topics of unknown type ("*", a
// subscriber of any type) are left out. It also returns the nodes of the graph, sorted.
func (g *graph) read(ctx context.Context) (map[string]rosgraph.Topic, []string, error) {
	m := g.node.Master()
	st, err := m.GetSystemState(ctx)
	if err != nil {
		return nil, nil, err
	}
	types, err := m.GetTopicTypes(ctx)
	if err != nil {
		return nil, nil, err
	}
	self := g.node.Name()
	others := func(nodes []string) bool {
		return slices.ContainsFunc(nodes, func(n string) bool { return n != self })
	}
	out := map[string]rosgraph.Topic{}
	for _, tn := range st.Subscribers {
		if others(tn.Nodes) || slices.Contains(tn.Nodes, self) {
			out[tn.Topic] = rosgraph.Topic{Name: tn.Topic, Direction: fleetgate.Input}
		}
	}
	for _, tn := range st.Publishers {
		switch {
		case others(tn.Nodes):
			out[tn.Topic] = rosgraph.Topic{Name: tn.Topic, Direction: fleetgate.Output}
		case slices.Contains(tn.Nodes, self):
			out[tn.Topic] = rosgraph.Topic{Name: tn.Topic, Direction: fleetgate.Input} // ours: an input in use
		}
	}
	for name, t := range out {
		typ := types[name]
		if typ == "" || typ == "*" {
			delete(out, name)
			continue
		}
		t.Type = typ
		out[name] = t
	}
	// A topic only we subscribe to has lost its publishers: nothing to read there.
	for _, tn := range st.Subscribers {
		if t, ok := out[tn.Topic]; ok && t.Direction == fleetgate.Input && !others(tn.Nodes) && !hasPublisher(st, tn.Topic, self) {
			delete(out, tn.Topic)
		}
	}
	var nodes []string
	for _, list := range [][]rosnode.TopicNodes{st.Publishers, st.Subscribers, st.Services} {
		for _, tn := range list {
			for _, n := range tn.Nodes {
				if n != self && !slices.Contains(nodes, n) {
					nodes = append(nodes, n)
				}
			}
		}
	}
	slices.Sort(nodes)
	return out, nodes, nil
}

func hasPublisher(st rosnode.SystemState, topic, self string) bool {
	for _, tn := range st.Publishers {
		if tn.Topic == topic && slices.Contains(tn.Nodes, self) {
			return true
		}
	}
	return false
}

// Codec is the ROS 1 serialisation of a catalog type.
func (g *graph) Codec(rosType string) (*rosmsg.Codec, error) { return rosmsg.CodecFor(rosType) }

// Subscribe subscribes the node to an output topic. A catalog type is asked for with its
// md5sum (a publisher of another definition refuses, and says so); any other type as "*",
// and its first publisher's definition is kept for recorders. A message of a publisher that
// latches (its connection header's latching=1) is delivered latched.
func (g *graph) Subscribe(ctx context.Context, t rosgraph.Topic, deliver func([]byte, bool)) (rosgraph.Reader, error) {
	opts := rosnode.SubscribeOptions{Topic: t.Name, Type: "*", MD5: "*",
		OnMessage: func(msg []byte, from rosnode.Connection) { deliver(msg, from.Latching) },
		// At the connection, not the first message: a quiet topic (a robot's /rosout) has a
		// definition, and a template, all the same.
		OnConnect: func(from rosnode.Connection) {
			if from.Definition != "" {
				g.noteDefinition(t, from.Definition)
			}
		},
	}
	if rosmsg.CatalogType(t.Type) != "" {
		c, err := rosmsg.CodecFor(t.Type)
		if err != nil {
			return nil, err
		}
		opts.Type, opts.MD5, opts.Definition = c.Spec.Type, c.Spec.MD5, c.Spec.FullText
	}
	sub, err := g.node.Subscribe(ctx, opts)
	if err != nil {
		return nil, err
	}
	return sub, nil // a rosgraph.Refuser too: a publisher may refuse our md5sum
}

// noteDefinition keeps the first definition a publisher of t sent.
func (g *graph) noteDefinition(t rosgraph.Topic, def string) {
	key := [2]string{t.Name, t.Type}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.definitions[key]; ok {
		return
	}
	if g.definitions == nil {
		g.definitions = map[[2]string]string{}
	}
	g.definitions[key] = def
}

func (g *graph) definition(t rosgraph.Topic) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	def, ok := g.definitions[[2]string{t.Name, t.Type}]
	return def, ok
}

// Advertise makes the node a publisher of an input topic.
func (g *graph) Advertise(ctx context.Context, t rosgraph.Topic, c *rosmsg.Codec) (rosgraph.Writer, error) {
	pub, err := g.node.Advertise(ctx, rosnode.PublishOptions{
		Topic: t.Name, Type: c.Spec.Type, MD5: c.Spec.MD5, Definition: c.Spec.FullText, Linger: inputLinger,
	})
	if err != nil {
		return nil, err
	}
	g.log.Info("publishing to a ROS topic", "topic", t.Name, "type", t.Type)
	return &publisher{pub: pub, spec: c.Spec}, nil
}

// publisher writes one input topic, numbering the messages whose header has a seq.
type publisher struct {
	pub  *rosnode.Publisher
	spec *rosmsg.Spec

	mu  sync.Mutex
	seq uint32
}

func (p *publisher) Write(msg []byte) error {
	p.mu.Lock()
	p.seq++
	rosmsg.SetSeq(p.spec, msg, p.seq)
	p.mu.Unlock()
	return p.pub.Publish(msg)
}

func (p *publisher) Close() { p.pub.Close() }

// MessageDefinition is the ROS 1 definition of an output topic's type (fleet.MessageDefinitions)
// for recorders: the catalog codec's for a converted type, else the one a publisher sent in
// its connection header (ENotFound until a publisher has connected).
func (r *Robot) MessageDefinition(ctx context.Context, key fleetgate.StreamKey) (string, string, error) {
	t, err := r.FindOutput(ctx, key)
	if err != nil {
		return "", "", err
	}
	if rosmsg.CatalogType(t.Type) != "" {
		c, err := rosmsg.CodecFor(t.Type)
		if err != nil {
			return "", "", fleetgate.Errorf(fleetgate.EUnavailable, "%s: %v", t.Name, err)
		}
		return "ros1msg", c.Spec.FullText, nil
	}
	if def, ok := r.graph.definition(t); ok {
		return "ros1msg", def, nil
	}
	return "", "", fleetgate.Errorf(fleetgate.ENotFound, "no publisher of %s has sent its message definition yet", t.Name)
}

// definitionPoll is how often MessageTemplate looks for the definition a new connection
// brought.
const definitionPoll = 20 * time.Millisecond

// MessageTemplate is endpoint 8's template of a type outside the catalog that an output
// topic of the robot carries (fleet.MessageTemplates): an empty message as JSON, from the
// definition the topic's publisher sends. A topic nobody follows yet is followed until its
// publisher has sent it, or ctx ends.
func (r *Robot) MessageTemplate(ctx context.Context, messageType string) ([]byte, error) {
	streams, err := r.Streams(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(streams, func(s fleetgate.Stream) bool {
		return s.Direction == fleetgate.Output && s.Type == messageType
	})
	if i < 0 {
		return nil, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no output topic of type %s", r.cfg.Name, messageType)
	}
	key := streams[i].Key()
	_, def, err := r.MessageDefinition(ctx, key)
	if fleetgate.Is(err, fleetgate.ENotFound) {
		// The publisher sends the definition in its connection header: connect, and wait.
		sub, serr := r.Subscribe(ctx, key, fleetgate.SubscribeOptions{})
		if serr != nil {
			return nil, serr
		}
		defer sub.Close()
		tick := time.NewTicker(definitionPoll)
		defer tick.Stop()
		for fleetgate.Is(err, fleetgate.ENotFound) {
			select {
			case <-ctx.Done():
				return nil, fleetgate.Errorf(fleetgate.ENotFound, "no publisher of %s sent the definition of %s in time", streams[i].Name, messageType)
			case <-tick.C:
			}
			_, def, err = r.MessageDefinition(ctx, key)
		}
	}
	if err != nil {
		return nil, err
	}
	spec, err := rosmsg.ParseFullText(messageType, def)
	if err != nil {
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "the definition of %s that %s's publisher sent: %v", messageType, streams[i].Name, err)
	}
	return spec.EmptyJSON(), nil
}
