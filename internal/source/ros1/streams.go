package ros1

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/internal/source/ros1/rosnode"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
)

// topicInfo is one topic of the ROS graph as a stream.
type topicInfo struct {
	name      string
	rosType   string
	direction string // fleetgate.Output or fleetgate.Input
}

// streamType is the stream's type: the catalog's name, or the ROS type for a topic whose
// type the catalog lacks (relayed as opaque bytes).
func (t topicInfo) streamType() string {
	if c := rosmsg.CatalogType(t.rosType); c != "" {
		return c
	}
	return t.rosType
}

// stream is the topic's descriptor; input topics declare the robot's speed limits, which the
// gateway clamps drive commands to.
func (t topicInfo) stream(limits fleetgate.SpeedLimits) fleetgate.Stream {
	s := fleetgate.Stream{Name: t.name, Type: t.streamType(), Direction: t.direction, Source: fleetgate.SourceROS1}
	if t.direction == fleetgate.Input {
		s.Limits = limits
	}
	return s
}

// graph is the topic list, by name.
type graph map[string]topicInfo

// readGraph lists the master's topics. A topic another node publishes is an output; one that
// only others subscribe to (or that only we publish) is an input. Topics of unknown type
// ("*", a subscriber of any type) are left out.
// It also returns the nodes of the graph, sorted.
func (r *Robot) readGraph(ctx context.Context) (graph, []string, error) {
	m := r.node.Master()
	st, err := m.GetSystemState(ctx)
	if err != nil {
		return nil, nil, err
	}
	types, err := m.GetTopicTypes(ctx)
	if err != nil {
		return nil, nil, err
	}
	self := r.node.Name()
	others := func(nodes []string) bool {
		return slices.ContainsFunc(nodes, func(n string) bool { return n != self })
	}
	g := graph{}
	for _, tn := range st.Subscribers {
		if others(tn.Nodes) || slices.Contains(tn.Nodes, self) {
			g[tn.Topic] = topicInfo{name: tn.Topic, direction: fleetgate.Input}
		}
	}
	for _, tn := range st.Publishers {
		switch {
		case others(tn.Nodes):
			g[tn.Topic] = topicInfo{name: tn.Topic, direction: fleetgate.Output}
		case slices.Contains(tn.Nodes, self):
			g[tn.Topic] = topicInfo{name: tn.Topic, direction: fleetgate.Input} // ours: an input in use
		}
	}
	for name, t := range g {
		typ := types[name]
		if typ == "" || typ == "*" {
			delete(g, name)
			continue
		}
		t.rosType = typ
		g[name] = t
	}
	// A topic only we subscribe to has lost its publishers: nothing to read there.
	for _, tn := range st.Subscribers {
		if t, ok := g[tn.Topic]; ok && t.direction == fleetgate.Input && !others(tn.Nodes) && !hasPublisher(st, tn.Topic, self) {
			delete(g, tn.Topic)
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
	return g, nodes, nil
}

func hasPublisher(st rosnode.SystemState, topic, self string) bool {
	for _, tn := range st.Publishers {
		if tn.Topic == topic && slices.Contains(tn.Nodes, self) {
			return true
		}
	}
	return false
}

// topics returns the topic list, read again when older than PollPeriod: the master is asked
// at most every PollPeriod, and only while someone asks.
func (r *Robot) topics(ctx context.Context) (graph, error) {
	if err := r.offline(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	g, at := r.graph, r.graphAt
	r.mu.Unlock()
	if !at.IsZero() && r.cfg.Now().Sub(at) < r.cfg.PollPeriod {
		return g, nil
	}
	r.refresh.Lock()
	defer r.refresh.Unlock()
	r.mu.Lock()
	g, at = r.graph, r.graphAt
	r.mu.Unlock()
	if !at.IsZero() && r.cfg.Now().Sub(at) < r.cfg.PollPeriod {
		return g, nil // read by the caller we waited for
	}
	fresh, nodes, err := r.readGraph(ctx)
	if err != nil {
		if g != nil {
			r.log.Debug("reading the ROS graph; keeping the last list", "err", err)
			return g, nil
		}
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "reading the topics of %s: %v", r.info.Name, err)
	}
	r.mu.Lock()
	r.graph, r.graphAt, r.nodes = fresh, r.cfg.Now(), nodes
	r.mu.Unlock()
	return fresh, nil
}

// Streams lists the topics as streams, sorted by name.
func (r *Robot) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	g, err := r.topics(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]fleetgate.Stream, 0, len(g))
	for _, t := range g {
		out = append(out, t.stream(fleetgate.SpeedLimits{Linear: r.cfg.MaxLinear, Angular: r.cfg.MaxAngular}))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// find resolves a stream key to its topic.
func (r *Robot) find(ctx context.Context, key fleetgate.StreamKey) (topicInfo, error) {
	g, err := r.topics(ctx)
	if err != nil {
		return topicInfo{}, err
	}
	t, ok := g[key.Name]
	if !ok || key.Component != "" || key.Source != fleetgate.SourceROS1 {
		return topicInfo{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no stream %s/%s of source %d", r.info.Name, key.Component, key.Name, key.Source)
	}
	return t, nil
}

func (r *Robot) findOutput(ctx context.Context, key fleetgate.StreamKey) (*inbound, error) {
	t, err := r.find(ctx, key)
	if err != nil {
		return nil, err
	}
	if t.direction != fleetgate.Output {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "%s is an input topic: nobody publishes it, so it cannot be read", t.name)
	}
	return r.inboundFor(t)
}

// inboundFor returns the reader of an output topic, made on first use.
func (r *Robot) inboundFor(t topicInfo) (*inbound, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.online {
		return nil, fleetgate.Errorf(fleetgate.EOffline, "robot %s is offline", r.info.Name)
	}
	in, ok := r.inbound[t.name]
	if ok && in.rosType == t.rosType {
		return in, nil
	}
	if ok { // the topic came back with another type
		go in.shutdown(fleetgate.Errorf(fleetgate.ENotFound, "topic %s changed type", t.name))
	}
	in = &inbound{r: r, name: t.name, rosType: t.rosType, typ: t.streamType()}
	in.timer = time.AfterFunc(r.cfg.Linger, in.expire)
	if rosmsg.CatalogType(t.rosType) != "" {
		c, err := rosmsg.CodecFor(t.rosType)
		if err != nil {
			return nil, fleetgate.Errorf(fleetgate.EUnavailable, "%s: %v", t.name, err)
		}
		in.codec = c
	}
	r.inbound[t.name] = in
	return in, nil
}

// Read returns the latest message of an output topic: the one the subscription has when it
// is live, else the first that arrives after subscribing (within ReadTimeout).
func (r *Robot) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	in, err := r.findOutput(ctx, key)
	if err != nil {
		return fleetgate.Sample{}, err
	}
	return in.read(ctx)
}

// Subscribe follows an output topic; the first subscriber starts the ROS subscription. The
// options are for sources whose samples cross a network: here every reader shares the one
// subscription, and the gateway paces and downsamples per client.
func (r *Robot) Subscribe(ctx context.Context, key fleetgate.StreamKey, _ fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	in, err := r.findOutput(ctx, key)
	if err != nil {
		return nil, err
	}
	return in.subscribe(ctx)
}

// MessageDefinition is the ROS 1 definition of an output topic's type (fleet.MessageDefinitions)
// for recorders: the catalog codec's for a converted type, else the one a publisher sent in
// its connection header (ErrNotFound until a publisher has connected).
func (r *Robot) MessageDefinition(ctx context.Context, key fleetgate.StreamKey) (string, string, error) {
	in, err := r.findOutput(ctx, key)
	if err != nil {
		return "", "", err
	}
	if in.codec != nil {
		return "ros1msg", in.codec.Spec.FullText, nil
	}
	if d := in.definition.Load(); d != nil {
		return "ros1msg", *d, nil
	}
	return "", "", fleetgate.Errorf(fleetgate.ENotFound, "no publisher of %s has sent its message definition yet", in.name)
}

var _ fleet.MessageDefinitions = (*Robot)(nil)

// errDropped ends a topic whose ROS subscription was dropped; nobody subscribes then, so
// nobody sees it.
var errDropped = errors.New("ROS subscription dropped")

// inbound is an output topic being read: one ROS subscription however many readers, with
// the fleet.Topic that fans its messages out. The subscription starts with the first reader
// and ends Linger after the last; its Topic goes with it, so a later reader never starts on a
// stale message.
type inbound struct {
	r       *Robot
	name    string
	rosType string
	typ     string        // sample type: catalog name or ROS type
	codec   *rosmsg.Codec // nil: opaque
	// definition is the message_definition of the first publisher that connected: what a
	// recorder stores as the schema of an opaque type (MessageDefinition).
	definition atomic.Pointer[string]

	// lastUse (unix nanoseconds) and timer are touched without mu: the Topic calls onActive
	// under its own lock, which Subscribe takes under mu.
	lastUse atomic.Int64
	timer   *time.Timer // drops the subscription Linger after the last use; set once

	mu    sync.Mutex
	topic *fleet.Topic
	sub   *rosnode.Subscription
	ended error // set by shutdown: no new subscriptions

	badLogged time.Time // rate limit of the decoding-error log line
}

// start makes the ROS subscription and its Topic if there are none. in.mu is held.
func (in *inbound) startLocked(ctx context.Context) error {
	if in.ended != nil {
		return in.ended
	}
	if in.topic != nil {
		return nil
	}
	topic := fleet.NewTopic(in.typ, in.onActive)
	opts := rosnode.SubscribeOptions{Topic: in.name, Type: "*", MD5: "*", OnMessage: func(msg []byte, from rosnode.Connection) {
		if in.definition.Load() == nil && from.Definition != "" {
			in.definition.Store(&from.Definition)
		}
		in.deliver(topic, msg)
	}}
	if in.codec != nil {
		opts.Type, opts.MD5, opts.Definition = in.codec.Spec.Type, in.codec.Spec.MD5, in.codec.Spec.FullText
	}
	sub, err := in.r.node.Subscribe(ctx, opts)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "subscribing to %s: %v", in.name, err)
	}
	in.topic, in.sub = topic, sub
	in.touch()
	return nil
}

// deliver converts a ROS message and publishes it on topic.
func (in *inbound) deliver(topic *fleet.Topic, msg []byte) {
	now := time.Now()
	payload := msg
	if in.codec != nil {
		var err error
		if payload, err = in.codec.ToCatalog(msg); err != nil {
			in.mu.Lock()
			logIt := now.Sub(in.badLogged) > time.Minute
			if logIt {
				in.badLogged = now
			}
			in.mu.Unlock()
			if logIt {
				in.r.log.Warn("dropping a ROS message that does not decode (logged once a minute)", "topic", in.name, "type", in.rosType, "err", err)
			}
			return
		}
	}
	topic.Publish(payload, now)
}

func (in *inbound) subscribe(ctx context.Context) (*fleet.Subscription, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.startLocked(ctx); err != nil {
		return nil, err
	}
	in.touch()
	return in.topic.Subscribe()
}

// onActive is the Topic's callback; it must not take in.mu (Subscribe runs under it). The
// last reader leaving starts the linger.
func (in *inbound) onActive(active bool) {
	if !active {
		in.touch()
	}
}

// touch records a use and sets the timer to drop the subscription Linger later.
func (in *inbound) touch() {
	in.lastUse.Store(time.Now().UnixNano())
	in.timer.Reset(in.r.cfg.Linger)
}

func (in *inbound) idleFor() time.Duration {
	return time.Since(time.Unix(0, in.lastUse.Load()))
}

// expire drops the ROS subscription if nobody read it for Linger.
func (in *inbound) expire() {
	in.mu.Lock()
	if in.topic == nil {
		in.mu.Unlock()
		return
	}
	if in.topic.Subscribers() > 0 {
		in.mu.Unlock()
		return // the last one leaving arms the timer again
	}
	if left := in.r.cfg.Linger - in.idleFor(); left > 0 {
		in.timer.Reset(left)
		in.mu.Unlock()
		return
	}
	topic, sub := in.topic, in.sub
	in.topic, in.sub = nil, nil
	in.mu.Unlock()
	topic.Close(errDropped)
	sub.Close()
	in.r.log.Debug("ROS subscription dropped: nobody reads it", "topic", in.name)
}

// shutdown ends the readers with err and the ROS subscription; the inbound takes no more.
func (in *inbound) shutdown(err error) {
	in.mu.Lock()
	in.ended = err
	topic, sub := in.topic, in.sub
	in.topic, in.sub = nil, nil
	in.timer.Stop()
	in.mu.Unlock()
	if topic != nil {
		topic.Close(err)
	}
	if sub != nil {
		sub.Close()
	}
}

// latest is the live subscription's last message, if there is one; it counts as a use.
func (in *inbound) latest() (fleetgate.Sample, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.topic == nil {
		return fleetgate.Sample{}, false
	}
	in.touch()
	return in.topic.Latest()
}

// kick starts the ROS subscription without waiting for a message, for readers that come back
// (the KPI hub asks every second) and take what is there.
func (in *inbound) kick(ctx context.Context) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.startLocked(ctx); err != nil {
		in.r.log.Debug("subscribing for metrics", "topic", in.name, "err", err)
		return
	}
	in.touch()
}

func (in *inbound) read(ctx context.Context) (fleetgate.Sample, error) {
	if s, ok := in.latest(); ok {
		return s, nil
	}
	sub, err := in.subscribe(ctx)
	if err != nil {
		return fleetgate.Sample{}, err
	}
	defer sub.Close()
	wait, cancel := context.WithTimeout(ctx, in.r.cfg.ReadTimeout)
	defer cancel()
	s, err := sub.Next(wait)
	if err == nil {
		return s, nil
	}
	if ctx.Err() != nil {
		return fleetgate.Sample{}, ctx.Err()
	}
	in.mu.Lock()
	rosSub := in.sub
	in.mu.Unlock()
	if rosSub != nil {
		if refused := rosSub.Refused(); refused != nil {
			return fleetgate.Sample{}, fleetgate.Errorf(fleetgate.EUnavailable, "%v", refused)
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fleetgate.Sample{}, fleetgate.Errorf(fleetgate.EUnavailable, "no message on %s within %v", in.name, in.r.cfg.ReadTimeout)
	}
	return fleetgate.Sample{}, err
}

// outbound is an input topic this agent publishes, advertised on first use and kept.
type outbound struct {
	codec *rosmsg.Codec
	pub   *rosnode.Publisher
	mu    sync.Mutex
	seq   uint32
}

// Publish sends a catalog message to an input topic as its ROS type. It takes only what
// passed the door: drive commands come held to the stream's Limits (MaxLinear, MaxAngular),
// paced and leased.
func (r *Robot) Publish(ctx context.Context, cmd door.Command) error {
	key, typ, payload, err := cmd.Open()
	if err != nil {
		return err
	}
	t, err := r.find(ctx, key)
	if err != nil {
		return err
	}
	if t.direction != fleetgate.Input {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s is an output topic: other nodes publish it", t.name)
	}
	if typ != t.streamType() {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s takes %s, not %s", t.name, t.streamType(), typ)
	}
	if rosmsg.CatalogType(t.rosType) == "" {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s is of type %s, which the message catalog lacks: it cannot be written", t.name, t.rosType)
	}
	m, err := msgs.Decode(typ, payload)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	if err := msgs.CheckFinite(m); err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	out, err := r.outboundFor(ctx, t)
	if err != nil {
		return err
	}
	data, err := out.codec.Encode(m)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	out.mu.Lock()
	out.seq++
	rosmsg.SetSeq(out.codec.Spec, data, out.seq)
	out.mu.Unlock()
	if err := out.pub.Publish(data); err != nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "publishing to %s: %v", t.name, err)
	}
	return nil
}

// outboundFor returns the publisher of an input topic, advertising it on first use.
func (r *Robot) outboundFor(ctx context.Context, t topicInfo) (*outbound, error) {
	r.mu.Lock()
	out, ok := r.outbound[t.name]
	r.mu.Unlock()
	if ok && out.codec.Spec.Type == t.rosType {
		return out, nil
	}
	c, err := rosmsg.CodecFor(t.rosType)
	if err != nil {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "%s: %v", t.name, err)
	}
	pub, err := r.node.Advertise(ctx, rosnode.PublishOptions{
		Topic: t.name, Type: c.Spec.Type, MD5: c.Spec.MD5, Definition: c.Spec.FullText, Linger: inputLinger,
	})
	if err != nil {
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "advertising %s: %v", t.name, err)
	}
	out = &outbound{codec: c, pub: pub}
	r.mu.Lock()
	if prev, ok := r.outbound[t.name]; ok && prev.pub == pub {
		out = prev // advertised concurrently: the node returned the same publisher
	} else {
		r.outbound[t.name] = out
	}
	r.mu.Unlock()
	r.log.Info("publishing to a ROS topic", "topic", t.name, "type", t.rosType)
	return out, nil
}
