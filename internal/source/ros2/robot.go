package ros2

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/internal/source/ros2/dds"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
)

// Robot is the robot of one ROS 2 namespace. It implements fleet.Robot.
type Robot struct {
	s    *Source
	ns   string
	info fleetgate.Info
	uuid uuid.UUID
	log  *slog.Logger

	mu       sync.Mutex
	online   bool
	lastSeen time.Time
	since    time.Time // when the robot last began to have topics; zero while it has none
	inbound  map[string]*inbound
	pending  sync.Mutex // one Presence call at a time

	// outMu guards outbound and is held while a new writer waits for its match.
	outMu    sync.Mutex
	outbound map[string]*outbound
}

var _ fleet.Robot = (*Robot)(nil)

// settle is how long a robot has topics before it goes online.
const settle = 400 * time.Millisecond

// Info identifies the robot.
func (r *Robot) Info() fleetgate.Info { return r.info }

// Namespace is the robot's ROS namespace.
func (r *Robot) Namespace() string { return r.ns }

// seen: the robot has topics now; it goes online if it was not.
func (r *Robot) seen(ctx context.Context, now time.Time) {
	r.mu.Lock()
	r.lastSeen = now
	if r.since.IsZero() {
		r.since = now
	}
	// Discovery brings a participant's endpoints one by one: a robot goes online once its
	// topics have been there a moment, so a namespace whose cmd_vel comes after its scan
	// does not flash by as topics of the root's robot.
	online, settled := r.online, now.Sub(r.since) >= settle
	r.mu.Unlock()
	if online || !settled {
		return
	}
	r.pending.Lock()
	defer r.pending.Unlock()
	r.mu.Lock()
	r.online = true
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := r.s.cfg.Presence.Online(ctx, r); err != nil {
		r.mu.Lock()
		r.online = false
		r.mu.Unlock()
		r.log.Warn("the ROS 2 robot cannot go online yet", "err", err)
		return
	}
	r.log.Info("ROS 2 robot online")
}

// idle: the robot has no topics; it goes offline OfflineAfter after the last one left.
func (r *Robot) idle(now time.Time) {
	r.mu.Lock()
	r.since = time.Time{}
	due := r.online && now.Sub(r.lastSeen) >= r.s.cfg.OfflineAfter
	r.mu.Unlock()
	if due {
		r.log.Info("ROS 2 robot offline: its topics left the graph")
		r.goOffline("its topics left the ROS 2 graph")
	}
}

// goOffline ends every reader with fleetgate.EOffline; writers stay for the robot's return.
func (r *Robot) goOffline(why string) {
	r.pending.Lock()
	defer r.pending.Unlock()
	r.mu.Lock()
	was := r.online
	r.online = false
	ins := r.inbound
	r.inbound = map[string]*inbound{}
	r.mu.Unlock()
	if was {
		r.s.cfg.Presence.Offline(r)
	}
	err := fleetgate.Errorf(fleetgate.EOffline, "robot %s is offline: %s", r.info.Name, why)
	var wg sync.WaitGroup
	for _, in := range ins {
		wg.Go(func() { in.shutdown(err) })
	}
	wg.Wait()
}

func (r *Robot) closeWriters() {
	r.outMu.Lock()
	outs := r.outbound
	r.outbound = map[string]*outbound{}
	r.outMu.Unlock()
	for _, o := range outs {
		o.w.Close()
	}
}

func (r *Robot) offline() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.online {
		return fleetgate.Errorf(fleetgate.EOffline, "robot %s is offline: none of its topics is in the ROS 2 graph", r.info.Name)
	}
	return nil
}

func (r *Robot) topics() (map[string]topicInfo, error) {
	if err := r.offline(); err != nil {
		return nil, err
	}
	return r.s.topicsOf(r.ns), nil
}

// followQoS has each reader follow its publishers' QoS: a best-effort publisher joining a
// reliable topic makes its reader best-effort, or it would never match.
func (r *Robot) followQoS() {
	r.mu.Lock()
	ins := make([]*inbound, 0, len(r.inbound))
	for _, in := range r.inbound {
		ins = append(ins, in)
	}
	r.mu.Unlock()
	if len(ins) == 0 {
		return
	}
	g := r.s.topicsOf(r.ns)
	for _, in := range ins {
		if t, ok := g[in.name]; ok && t.direction == fleetgate.Output && t.ddsType == in.ddsType {
			in.follow(t.qos)
		}
	}
}

func (r *Robot) limits() fleetgate.SpeedLimits {
	return fleetgate.SpeedLimits{Linear: r.s.cfg.MaxLinear, Angular: r.s.cfg.MaxAngular}
}

// Streams lists the robot's topics as streams, sorted by name.
func (r *Robot) Streams(ctx context.Context) ([]fleetgate.Stream, error) {
	g, err := r.topics()
	if err != nil {
		return nil, err
	}
	out := make([]fleetgate.Stream, 0, len(g))
	for _, t := range g {
		st := fleetgate.Stream{Name: t.name, Type: t.streamType(), Direction: t.direction, Source: fleetgate.SourceROS2}
		if t.direction == fleetgate.Input {
			st.Limits = r.limits()
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (r *Robot) find(key fleetgate.StreamKey) (topicInfo, error) {
	g, err := r.topics()
	if err != nil {
		return topicInfo{}, err
	}
	t, ok := g[key.Name]
	if !ok || key.Component != "" || key.Source != fleetgate.SourceROS2 {
		return topicInfo{}, fleetgate.Errorf(fleetgate.ENotFound, "robot %s has no stream %s/%s of source %d", r.info.Name, key.Component, key.Name, key.Source)
	}
	return t, nil
}

func (r *Robot) findOutput(key fleetgate.StreamKey) (*inbound, error) {
	t, err := r.find(key)
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
	if ok && in.ddsType == t.ddsType {
		return in, nil
	}
	if ok {
		go in.shutdown(fleetgate.Errorf(fleetgate.ENotFound, "topic %s changed type", t.name))
	}
	in = &inbound{r: r, name: t.name, ddsType: t.ddsType, ros2Type: t.ros2Type, typ: t.streamType(), qos: t.qos}
	in.timer = time.AfterFunc(r.s.cfg.Linger, in.expire)
	if catalogType(t.ros2Type) != "" {
		c, err := rosmsg.CDRCodecFor(codecType(t.ros2Type))
		if err != nil {
			return nil, fleetgate.Errorf(fleetgate.EUnavailable, "%s: %v", t.name, err)
		}
		in.codec = c
	}
	r.inbound[t.name] = in
	return in, nil
}

// Read returns the latest sample of an output topic, or the first that arrives (ReadTimeout).
func (r *Robot) Read(ctx context.Context, key fleetgate.StreamKey) (fleetgate.Sample, error) {
	in, err := r.findOutput(key)
	if err != nil {
		return fleetgate.Sample{}, err
	}
	return in.read(ctx)
}

// Subscribe follows an output topic; the first subscriber makes the DDS reader. Every reader
// shares it, and the gateway paces and downsamples per client.
func (r *Robot) Subscribe(ctx context.Context, key fleetgate.StreamKey, _ fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	in, err := r.findOutput(key)
	if err != nil {
		return nil, err
	}
	return in.subscribe()
}

var errDropped = errors.New("DDS reader dropped")

// inbound is an output topic being read: one DDS reader however many readers, with the
// fleet.Topic that fans its samples out. The reader starts with the first subscriber and ends
// Linger after the last.
type inbound struct {
	r        *Robot
	name     string
	ddsType  string
	ros2Type string
	typ      string        // sample type: catalog name or ROS 2 type
	codec    *rosmsg.Codec // nil: opaque CDR

	lastUse atomic.Int64
	timer   *time.Timer

	mu     sync.Mutex
	topic  *fleet.Topic
	reader *dds.Reader
	qos    dds.QoS
	ended  error

	badLogged time.Time
}

func (in *inbound) startLocked() error {
	if in.ended != nil {
		return in.ended
	}
	if in.topic != nil {
		return nil
	}
	topic := fleet.NewTopic(in.typ, in.onActive)
	rd, err := in.r.s.p.Reader(ddsTopic(in.name), in.ddsType, in.qos, func(b []byte) { in.deliver(topic, b) })
	if err != nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "reading %s: %v", in.name, err)
	}
	in.topic, in.reader = topic, rd
	in.touch()
	return nil
}

// follow remakes the DDS reader with new QoS; its subscribers stay.
func (in *inbound) follow(qos dds.QoS) {
	in.mu.Lock()
	if in.qos == qos {
		in.mu.Unlock()
		return
	}
	in.qos = qos
	old, topic := in.reader, in.topic
	if topic == nil {
		in.mu.Unlock()
		return
	}
	rd, err := in.r.s.p.Reader(ddsTopic(in.name), in.ddsType, qos, func(b []byte) { in.deliver(topic, b) })
	if err != nil {
		in.r.log.Warn("following the publishers' QoS", "topic", in.name, "err", err)
		in.mu.Unlock()
		return
	}
	in.reader = rd
	in.mu.Unlock()
	old.Close()
	in.r.log.Info("reader follows its publishers' QoS", "topic", in.name, "reliable", qos.Reliable, "transient_local", qos.TransientLocal)
}

// deliver decodes a sample and publishes it on topic. Bytes that do not decode are refused
// with a log line (once a minute per topic), never a crash.
func (in *inbound) deliver(topic *fleet.Topic, data []byte) {
	now := time.Now()
	payload := data
	if in.codec != nil {
		var err error
		if payload, err = in.codec.ToCatalog(data); err != nil {
			in.mu.Lock()
			logIt := now.Sub(in.badLogged) > time.Minute
			if logIt {
				in.badLogged = now
			}
			in.mu.Unlock()
			if logIt {
				in.r.log.Warn("dropping a ROS 2 sample that does not decode (logged once a minute)", "topic", in.name, "type", in.ros2Type, "bytes", len(data), "err", err)
			}
			return
		}
	}
	topic.Publish(payload, now)
}

func (in *inbound) subscribe() (*fleet.Subscription, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.startLocked(); err != nil {
		return nil, err
	}
	in.touch()
	return in.topic.Subscribe()
}

func (in *inbound) onActive(active bool) {
	if !active {
		in.touch()
	}
}

func (in *inbound) touch() {
	in.lastUse.Store(time.Now().UnixNano())
	in.timer.Reset(in.r.s.cfg.Linger)
}

func (in *inbound) expire() {
	in.mu.Lock()
	if in.topic == nil || in.topic.Subscribers() > 0 {
		in.mu.Unlock()
		return
	}
	if left := in.r.s.cfg.Linger - time.Since(time.Unix(0, in.lastUse.Load())); left > 0 {
		in.timer.Reset(left)
		in.mu.Unlock()
		return
	}
	topic, rd := in.topic, in.reader
	in.topic, in.reader = nil, nil
	in.mu.Unlock()
	rd.Close()
	topic.Close(errDropped)
	in.r.log.Debug("DDS reader dropped: nobody reads it", "topic", in.name)
}

func (in *inbound) shutdown(err error) {
	in.mu.Lock()
	in.ended = err
	topic, rd := in.topic, in.reader
	in.topic, in.reader = nil, nil
	in.timer.Stop()
	in.mu.Unlock()
	if rd != nil {
		rd.Close()
	}
	if topic != nil {
		topic.Close(err)
	}
}

func (in *inbound) latest() (fleetgate.Sample, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.topic == nil {
		return fleetgate.Sample{}, false
	}
	in.touch()
	return in.topic.Latest()
}

// kick starts the reader without waiting for a sample (for the KPI hub's next tick).
func (in *inbound) kick() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.startLocked(); err != nil {
		in.r.log.Debug("reading for metrics", "topic", in.name, "err", err)
		return
	}
	in.touch()
}

func (in *inbound) read(ctx context.Context) (fleetgate.Sample, error) {
	if s, ok := in.latest(); ok {
		return s, nil
	}
	sub, err := in.subscribe()
	if err != nil {
		return fleetgate.Sample{}, err
	}
	defer sub.Close()
	wait, cancel := context.WithTimeout(ctx, in.r.s.cfg.ReadTimeout)
	defer cancel()
	s, err := sub.Next(wait)
	if err == nil {
		return s, nil
	}
	if ctx.Err() != nil {
		return fleetgate.Sample{}, ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fleetgate.Sample{}, fleetgate.Errorf(fleetgate.EUnavailable, "no sample on %s within %v", in.name, in.r.s.cfg.ReadTimeout)
	}
	return fleetgate.Sample{}, err
}

// outbound is an input topic this agent writes: made on first use and kept.
type outbound struct {
	w       *dds.Writer
	ddsType string
	codec   *rosmsg.Codec
}

// Publish sends a catalog message to an input topic as CDR. It takes only what passed the
// door: drive commands come held to the stream's Limits, paced and leased.
func (r *Robot) Publish(ctx context.Context, cmd door.Command) error {
	key, typ, payload, err := cmd.Open()
	if err != nil {
		return err
	}
	t, err := r.find(key)
	if err != nil {
		return err
	}
	if t.direction != fleetgate.Input {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s is an output topic: other nodes publish it", t.name)
	}
	if typ != t.streamType() {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s takes %s, not %s", t.name, t.streamType(), typ)
	}
	if catalogType(t.ros2Type) == "" {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s is of type %s, which the message catalog lacks: it cannot be written", t.name, t.ros2Type)
	}
	m, err := msgs.Decode(typ, payload)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	if err := msgs.CheckFinite(m); err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	out, err := r.outboundFor(t)
	if err != nil {
		return err
	}
	data, err := out.codec.Encode(m)
	if err != nil {
		return fleetgate.Errorf(fleetgate.EInvalid, "%v", err)
	}
	if err := out.w.Write(data); err != nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "publishing to %s: %v", t.name, err)
	}
	return nil
}

// outboundFor returns the writer of an input topic, made on first use. A new writer waits
// (MatchWait at most) for the topic's subscribers to match it, so the first command is not
// lost to discovery.
func (r *Robot) outboundFor(t topicInfo) (*outbound, error) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	if out, ok := r.outbound[t.name]; ok && out.ddsType == t.ddsType {
		return out, nil
	} else if ok {
		out.w.Close()
		delete(r.outbound, t.name)
	}
	c, err := rosmsg.CDRCodecFor(codecType(t.ros2Type))
	if err != nil {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "%s: %v", t.name, err)
	}
	w, err := r.s.p.Writer(ddsTopic(t.name), t.ddsType, dds.QoS{Reliable: true, Depth: 1})
	if err != nil {
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "writing to %s: %v", t.name, err)
	}
	if t.lateJoiners > 0 {
		r.log.Warn("subscribers of an input topic ask for transient-local durability, which the agent never offers (a drive command must not reach a late joiner): they get no commands",
			"topic", t.name, "subscribers", t.lateJoiners)
	}
	deadline := time.Now().Add(r.s.cfg.MatchWait)
	for w.Matched() < t.readers-t.lateJoiners && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	out := &outbound{w: w, ddsType: t.ddsType, codec: c}
	r.outbound[t.name] = out
	r.log.Info("writing to a ROS 2 topic", "topic", t.name, "type", t.ros2Type, "matched", w.Matched())
	return out, nil
}
