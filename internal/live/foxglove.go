package live

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/live/foxglove"
	"github.com/fleetgate/fleetgate/internal/live/output"
	"github.com/fleetgate/fleetgate/internal/live/teleop"
	"github.com/fleetgate/fleetgate/internal/msgs"
)

// Foxglove is a robot authorised for a Foxglove session, as the core hands it out after its
// checks: its streams, each output stream to follow, and each input stream to drive (whose
// lease the core takes at the door, or at the robot's agent).
type Foxglove interface {
	RobotID() string
	RobotName() string
	// Streams lists the robot's streams now.
	Streams(ctx context.Context) ([]fleetgate.Stream, error)
	// Definition is the robot's own definition of the type of a stream outside the catalog
	// (a ROS type relayed as the transport's bytes): its encoding (foxglove.DefinitionROS1,
	// foxglove.DefinitionROS2) and text. ENotFound when the robot does not know it.
	Definition(ctx context.Context, key fleetgate.StreamKey) (encoding, definition string, err error)
	// Output is output stream s, to follow as W3 does.
	Output(s fleetgate.Stream) Output
	// MayPublish says whether the caller may drive the robot (role and token scope).
	MayPublish() bool
	// Publish takes the control of input stream key for the caller: the stream's one lease,
	// held until the Input's Release. A stream somebody else drives is fleetgate.HeldError's.
	Publish(ctx context.Context, key fleetgate.StreamKey) (Input, error)
}

// FoxgloveOptions are a client's choices for a Foxglove session.
type FoxgloveOptions struct {
	// Name is the server's name in the serverInfo message.
	Name string
	// Downsample: point clouds come downsampled, as W3 sends them by default.
	Downsample bool
}

// MaxFoxgloveMessage is the largest message a Foxglove client may send: its subscriptions and
// advertisements (a schema included) and its commands.
const MaxFoxgloveMessage = 256 << 10

// foxgloveRefresh is how often a session lists the robot's streams again: ROS topics come and
// go, and a channel whose source failed comes back once it can be followed again.
var foxgloveRefresh atomicDuration

func init() { foxgloveRefresh.Store(int64(5 * time.Second)) }

// SetFoxgloveRefresh shortens the stream listing period (tests); the returned func restores it.
func SetFoxgloveRefresh(d time.Duration) (restore func()) {
	old := foxgloveRefresh.get()
	foxgloveRefresh.Store(int64(d))
	return func() { foxgloveRefresh.Store(int64(old)) }
}

// StartFoxglove runs a Foxglove WebSocket protocol session (foxglove.websocket.v1) on conn for
// robot until it ends, on goroutines of its own; it returns once the session is registered
// (Shutdown waits for it), as StartOutput does.
//
// The robot's output streams are its channels. A subscription is a W3 output relay of its
// own: latest sample wins per subscription, each sample encoded once for every client of the
// stream (output.Foxglove: the message itself, a camera image as foxglove.CompressedImage),
// and only the protocol's 13-byte header, which names the client's subscription, is the
// client's. A client channel (clientPublish) drives an input stream under the teleop policy,
// as a W3 input socket does: its advertisement takes the stream's lease (refused while
// somebody else holds it), each message is decoded, held to the speeds and paced by the
// door, and its unadvertisement, the socket's end, a revoked token, the robot gone or a
// silent client publish the zero and let the lease go.
func (ss *Sessions) StartFoxglove(conn Conn, robot Foxglove, opt FoxgloveOptions, recheck Recheck) {
	f := &foxgloveSession{session: newSession(ss, conn, recheck), robot: robot, opt: opt,
		channels: map[uint32]*fgChannel{}, ids: map[fgChannelKey]uint32{}, subs: map[uint32]*fgSub{},
		pubs: map[uint32]*fgPub{}, warned: map[string]time.Time{}}
	f.onStop = f.stopPublishers
	if !ss.add(f.session) {
		go f.refuse()
		return
	}
	go f.run()
}

type foxgloveSession struct {
	*session
	robot Foxglove
	opt   FoxgloveOptions
	ctx   context.Context // the session's; ends with it

	wmu sync.Mutex // one message written at a time: subscriptions' relays and the session's own

	mu           sync.Mutex
	channels     map[uint32]*fgChannel   // advertised, by id
	ids          map[fgChannelKey]uint32 // every channel id given, kept for a stream that comes back
	nextID       uint32                  // the last channel id given
	subs         map[uint32]*fgSub       // by the client's subscription id
	pubs         map[uint32]*fgPub       // the client's channels, by its id
	watching     bool                    // the publishers' watch runs
	robotMissing bool                    // the last listing failed (status "robot" shown)
	warned       map[string]time.Time    // when a status of this id was last sent (rate limit)
	ended        bool                    // the session is over: nothing new starts
	teardowns    sync.WaitGroup          // subscriptions being taken down
}

// fgChannelKey is what a channel id stands for: the id is reused only for the same stream and
// type (the protocol's rule: the same topic, encoding and schema).
type fgChannelKey struct {
	stream fleetgate.StreamKey
	typ    string
}

type fgChannel struct {
	info   foxglove.Channel
	stream fleetgate.Stream
}

// fgSub is one subscription of the client: a relay of its channel's stream.
type fgSub struct {
	id      uint32
	ch      *fgChannel
	cancel  context.CancelFunc
	closed  bool // under the session's wmu: nothing more is written for it
	failed  sync.Once
	sub     *fleet.Subscription // nil until subscribed
	relay   *relay
	release func()
	head    []byte // the client's header before each message (written under wmu)
}

// fgPub is one channel the client publishes on: an input stream it drives, or one it was
// refused (in nil), whose messages are then ignored.
type fgPub struct {
	ch      foxglove.ClientChannel
	stream  fleetgate.Stream
	in      Input
	driver  Driver
	format  string // teleop.FormatJSON or teleop.FormatProtobuf
	stopped bool   // the zero went out and the lease is free (or was never held)
	why     string // why it publishes nothing (shown again when the client sends more)
}

func (f *foxgloveSession) run() {
	defer f.ss.remove(f.session)
	ctx, cancel := context.WithCancel(context.Background())
	f.ctx = ctx
	stopChecks := f.checkEvery(ctx, tokenCheckPeriod, f.check)
	name := f.opt.Name
	if name == "" {
		name = "fleetgate"
	}
	info := &foxglove.ServerInfo{Name: name, Capabilities: []string{},
		Metadata:  map[string]string{"robotId": f.robot.RobotID(), "robotName": f.robot.RobotName()},
		SessionID: fmt.Sprintf("%s-%d", f.robot.RobotID(), time.Now().UnixNano())}
	if f.robot.MayPublish() {
		info.Capabilities = append(info.Capabilities, foxglove.CapabilityClientPublish)
		info.SupportedEncodings = []string{foxglove.EncodingJSON, foxglove.EncodingProtobuf}
	}
	if f.writeText(info) == nil {
		f.refreshChannels()
		go f.every(ctx, foxgloveRefresh.get(), func(context.Context) bool { f.refreshChannels(); return true })
		f.readClient()
	}
	f.mu.Lock()
	f.ended = true
	subs := slices.Collect(maps.Values(f.subs))
	clear(f.subs)
	f.mu.Unlock()
	for _, sub := range subs {
		f.takeDown(sub)
	}
	f.teardowns.Wait()
	stopChecks()
	cancel()
	<-f.conn.Closed()
}

// readClient reads the client's messages until the connection ends.
func (f *foxgloveSession) readClient() {
	buf := make([]byte, 0, 4<<10)
	for {
		data, binary, err := f.conn.Read(context.Background(), buf[:0])
		if fleetgate.Is(err, fleetgate.ETooLarge) {
			f.stop(fleetgate.Errorf(fleetgate.ETooLarge, "message too big: over %d KiB", MaxFoxgloveMessage>>10))
			return
		} else if err != nil {
			f.stop(errClientGone)
			return
		}
		buf = data
		if binary {
			f.clientMessage(data)
		} else {
			f.clientOp(data)
		}
		if f.stopped() {
			return
		}
	}
}

func (f *foxgloveSession) clientOp(data []byte) {
	op, err := foxglove.ParseClientOp(data)
	if err != nil {
		f.status(foxglove.LevelError, "", err.Error())
		return
	}
	switch op.Op {
	case foxglove.OpSubscribe:
		for _, s := range op.Subscriptions {
			f.subscribe(s)
		}
	case foxglove.OpUnsubscribe:
		for _, id := range op.SubscriptionIDs {
			f.unsubscribe(id)
		}
	case foxglove.OpAdvertise:
		for _, ch := range op.Channels {
			f.advertise(ch)
		}
	case foxglove.OpUnadvertise:
		for _, id := range op.ChannelIDs {
			f.unadvertise(id)
		}
	default:
		f.statusOnce(foxglove.LevelWarning, "op:"+op.Op, fmt.Sprintf("fleetgate does not serve %q (it serves subscribe, unsubscribe, advertise and unadvertise)", op.Op))
	}
}

// refreshChannels lists the robot's streams and advertises the output streams not advertised
// yet, and unadvertises those gone. A listing that fails (the robot offline or slow) changes
// nothing but says so; the subscriptions end by themselves when their source goes.
func (f *foxgloveSession) refreshChannels() {
	ctx, cancel := context.WithTimeout(f.ctx, 5*time.Second)
	defer cancel()
	streams, err := f.robot.Streams(ctx)
	if err != nil {
		if f.ctx.Err() == nil {
			f.mu.Lock()
			f.robotMissing = true
			f.mu.Unlock()
			f.status(foxglove.LevelWarning, "robot", "cannot list the streams of "+f.robot.RobotName()+": "+fleetgate.ErrorMessage(err))
		}
		return
	}
	type described struct {
		key    fgChannelKey
		stream fleetgate.Stream
		schema foxglove.Schema
	}
	var found []described
	var unlisted []string
	for _, s := range streams {
		if s.Direction == fleetgate.Input {
			continue
		}
		schema, err := f.schema(ctx, s)
		if err != nil {
			unlisted = append(unlisted, foxglove.Topic(s.Component, s.Name)+" ("+err.Error()+")")
			continue
		}
		found = append(found, described{fgChannelKey{s.Key(), s.Type}, s, schema})
	}
	var added []foxglove.Channel
	var removed []uint32
	var gone []*fgSub
	f.mu.Lock()
	if f.ended {
		f.mu.Unlock()
		return
	}
	wasMissing := f.robotMissing
	f.robotMissing = false
	present := map[uint32]bool{}
	for _, d := range found {
		id, ok := f.ids[d.key]
		if !ok {
			f.nextID++
			id = f.nextID
			f.ids[d.key] = id
		}
		present[id] = true
		if f.channels[id] != nil {
			continue
		}
		ch := &fgChannel{info: d.schema.Channel(id, foxglove.Topic(d.stream.Component, d.stream.Name)), stream: d.stream}
		f.channels[id] = ch
		added = append(added, ch.info)
	}
	for id := range f.channels {
		if !present[id] {
			delete(f.channels, id)
			removed = append(removed, id)
		}
	}
	for subID, sub := range f.subs {
		if !present[sub.ch.info.ID] {
			delete(f.subs, subID)
			gone = append(gone, sub)
		}
	}
	f.mu.Unlock()
	for _, sub := range gone {
		f.takeDown(sub)
	}
	if wasMissing {
		f.writeText(&foxglove.RemoveStatus{StatusIDs: []string{"robot"}})
	}
	if len(removed) > 0 {
		sort.Slice(removed, func(i, j int) bool { return removed[i] < removed[j] })
		f.writeText(&foxglove.Unadvertise{ChannelIDs: removed})
	}
	if len(added) > 0 {
		sort.Slice(added, func(i, j int) bool { return added[i].ID < added[j].ID })
		f.writeText(&foxglove.Advertise{Channels: added})
	}
	if len(unlisted) > 0 {
		f.statusOnce(foxglove.LevelWarning, "unlisted", "streams without a schema Foxglove reads are not channels: "+strings.Join(unlisted, ", "))
	}
}

// schema is how stream s goes as a channel: a catalog type as protobuf (camera images as
// foxglove.CompressedImage), a ROS type outside the catalog with the robot's definition.
func (f *foxgloveSession) schema(ctx context.Context, s fleetgate.Stream) (foxglove.Schema, error) {
	if msgs.Known(s.Type) {
		return foxglove.ProtobufSchema(output.FoxgloveType(s.Type))
	}
	enc, def, err := f.robot.Definition(ctx, s.Key())
	if err != nil {
		return foxglove.Schema{}, fmt.Errorf("%s: %s", s.Type, fleetgate.ErrorMessage(err))
	}
	return foxglove.ROSSchema(s.Type, enc, def)
}

// subscribe starts a subscription: the stream is followed on a goroutine of its own, since
// through the cloud that takes a round trip to the agent, and the client may go on meanwhile.
func (f *foxgloveSession) subscribe(s foxglove.Subscription) {
	f.mu.Lock()
	if f.ended {
		f.mu.Unlock()
		return
	}
	if f.subs[s.ID] != nil {
		f.mu.Unlock()
		f.status(foxglove.LevelError, "", fmt.Sprintf("subscription id %d is in use", s.ID))
		return
	}
	ch := f.channels[s.ChannelID]
	if ch == nil {
		f.mu.Unlock()
		f.status(foxglove.LevelError, "", fmt.Sprintf("no channel %d", s.ChannelID))
		return
	}
	for _, other := range f.subs {
		if other.ch == ch {
			f.mu.Unlock()
			f.status(foxglove.LevelError, "", fmt.Sprintf("channel %d (%s) is subscribed already, as %d", ch.info.ID, ch.info.Topic, other.id))
			return
		}
	}
	ctx, cancel := context.WithCancel(f.ctx)
	sub := &fgSub{id: s.ID, ch: ch, cancel: cancel}
	f.subs[s.ID] = sub
	f.teardowns.Add(1) // until the subscription is taken down
	f.mu.Unlock()
	go f.follow(ctx, sub)
}

// follow subscribes to sub's stream and relays it.
func (f *foxgloveSession) follow(ctx context.Context, sub *fgSub) {
	stream, fsub, err := f.robot.Output(sub.ch.stream).Subscribe(ctx, fleetgate.SubscribeOptions{Downsample: f.opt.Downsample})
	if err != nil {
		f.fail(sub, outputRefused(err))
		return
	}
	feed, release := f.ss.feeds.Get(f.robot.RobotID(), stream)
	r := &relay{s: f.session, sub: fsub, feed: feed, pacer: output.NewPacer(0),
		variant: output.Variant{Format: output.Foxglove, Downsample: f.opt.Downsample}}
	r.drainFn = r.drain
	r.send = func(fr output.Frame, s fleetgate.Sample) error { return f.writeMessage(sub, fr, s) }
	r.fail = func(why error) { f.fail(sub, why) }
	f.mu.Lock()
	if f.subs[sub.id] != sub { // unsubscribed, failed or the session ended meanwhile
		f.mu.Unlock()
		fsub.Close()
		release()
		return
	}
	sub.sub, sub.relay, sub.release = fsub, r, release
	f.mu.Unlock()
	fsub.OnReady(r.kick)
}

// writeMessage writes one of sub's messages: the client's header, then the frame shared by
// every client of the sample.
func (f *foxgloveSession) writeMessage(sub *fgSub, fr output.Frame, s fleetgate.Sample) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	if sub.closed {
		return nil
	}
	at := s.Time
	if at.IsZero() {
		at = time.Now()
	}
	sub.head = foxglove.AppendMessageHeader(sub.head[:0], sub.id, foxglove.Nanos(at))
	sub.head = append(sub.head, fr.Head...)
	f.writing.set(time.Now())
	err := f.conn.Write(output.Frame{Head: sub.head, Body: fr.Body, Tail: fr.Tail}, false)
	f.writing.set(time.Time{})
	return err
}

// writeText writes one of the protocol's JSON messages.
func (f *foxgloveSession) writeText(m any) error {
	b := foxglove.Marshal(m)
	f.wmu.Lock()
	defer f.wmu.Unlock()
	f.writing.set(time.Now())
	err := f.conn.Write(output.Frame{Body: b}, true)
	f.writing.set(time.Time{})
	if err != nil {
		f.stop(errClientGone)
	}
	return err
}

func (f *foxgloveSession) status(level int, id, message string) {
	f.writeText(&foxglove.Status{Level: level, Message: message, ID: id})
}

// statusOnce sends a status of id at most once every few seconds: a client that sends the
// same wrong thing many times a second hears of it, without a flood.
func (f *foxgloveSession) statusOnce(level int, id, message string) {
	now := time.Now()
	f.mu.Lock()
	last, seen := f.warned[id]
	if seen && now.Sub(last) < 5*time.Second {
		f.mu.Unlock()
		return
	}
	f.warned[id] = now
	f.mu.Unlock()
	f.status(level, id, message)
}

func (f *foxgloveSession) unsubscribe(id uint32) {
	f.mu.Lock()
	sub := f.subs[id]
	delete(f.subs, id)
	f.mu.Unlock()
	if sub == nil {
		f.status(foxglove.LevelWarning, "", fmt.Sprintf("no subscription %d", id))
		return
	}
	f.takeDown(sub)
}

// fail ends subscription sub with why: the client hears why, and its channel is withdrawn
// until a listing finds the stream again, when it is advertised anew and a client such as
// Foxglove subscribes again by itself.
func (f *foxgloveSession) fail(sub *fgSub, why error) {
	sub.failed.Do(func() {
		f.mu.Lock()
		mine := f.subs[sub.id] == sub
		if mine {
			delete(f.subs, sub.id)
		}
		withdrawn := mine && f.channels[sub.ch.info.ID] == sub.ch
		if withdrawn {
			delete(f.channels, sub.ch.info.ID)
		}
		f.mu.Unlock()
		if !mine {
			return
		}
		go f.takeDown(sub) // not on the relay's goroutine: taking it down waits for it
		if f.stopped() {
			return
		}
		f.status(foxglove.LevelError, "", sub.ch.info.Topic+": "+fleetgate.ErrorMessage(why))
		if withdrawn {
			f.writeText(&foxglove.Unadvertise{ChannelIDs: []uint32{sub.ch.info.ID}})
		}
	})
}

// takeDown ends a subscription taken out of the map: nothing more is written for it once it
// returns.
func (f *foxgloveSession) takeDown(sub *fgSub) {
	defer f.teardowns.Done()
	f.wmu.Lock()
	sub.closed = true
	f.wmu.Unlock()
	sub.cancel()
	f.mu.Lock()
	r, fsub, release := sub.relay, sub.sub, sub.release
	sub.relay, sub.sub, sub.release = nil, nil, nil
	f.mu.Unlock()
	if r != nil {
		r.end()
		fsub.Close()
		release()
	}
}

// advertise is a client channel: a publication on the input stream of the same topic, which
// takes the stream's lease for the caller.
func (f *foxgloveSession) advertise(ch foxglove.ClientChannel) {
	p := &fgPub{ch: ch, stopped: true}
	f.mu.Lock()
	if old := f.pubs[ch.ID]; old != nil && !old.stopped {
		f.mu.Unlock()
		f.status(foxglove.LevelError, "", fmt.Sprintf("client channel %d is advertised already (%s)", ch.ID, old.ch.Topic))
		return
	}
	f.pubs[ch.ID] = p // refused or not: its messages are then told why
	f.mu.Unlock()
	in, format, err := f.takeControl(ch)
	if err != nil {
		f.mu.Lock()
		p.why = "publishing on " + ch.Topic + " refused: " + fleetgate.ErrorMessage(err)
		f.mu.Unlock()
		f.status(foxglove.LevelError, "publish:"+ch.Topic, p.why)
		return
	}
	f.mu.Lock()
	p.in, p.stream, p.format = in, in.Stream(), format
	p.driver = in.Drive(func(err error) { go f.stopPublisher(p, err) })
	if f.ended || f.pubs[ch.ID] != p {
		f.mu.Unlock()
		f.stopPublisher(p, nil)
		return
	}
	p.stopped = false
	start := !f.watching
	f.watching = true
	f.mu.Unlock()
	if start {
		go f.watchPublishers()
	}
}

// takeControl resolves client channel ch's topic to an input stream and takes its lease;
// format is how its messages are decoded.
func (f *foxgloveSession) takeControl(ch foxglove.ClientChannel) (in Input, format string, err error) {
	if !f.robot.MayPublish() {
		return nil, "", fleetgate.Errorf(fleetgate.EForbidden, "this token may not drive robots")
	}
	switch ch.Encoding {
	case foxglove.EncodingJSON:
		format = teleop.FormatJSON
	case foxglove.EncodingProtobuf:
		format = teleop.FormatProtobuf
	default:
		return nil, "", fleetgate.Errorf(fleetgate.EInvalid, "encoding %q: this server takes json or protobuf", ch.Encoding)
	}
	ctx, cancel := context.WithTimeout(f.ctx, 5*time.Second)
	defer cancel()
	streams, err := f.robot.Streams(ctx)
	if err != nil {
		return nil, "", err
	}
	var inputs []string
	for _, s := range streams {
		if s.Direction != fleetgate.Input {
			continue
		}
		topic := foxglove.Topic(s.Component, s.Name)
		if topic != ch.Topic {
			inputs = append(inputs, topic)
			continue
		}
		if name := ch.SchemaName; name != "" && name != s.Type {
			if full, ok := msgs.CatalogName(name); !ok || full != s.Type {
				return nil, "", fleetgate.Errorf(fleetgate.EInvalid, "%s takes %s, not %s", topic, s.Type, name)
			}
		}
		in, err := f.robot.Publish(ctx, s.Key())
		if held, ok := fleetgate.HeldBy(err); ok {
			return nil, "", fleetgate.Errorf(fleetgate.EConflict, "%s is driven by %s since %s", topic, held.Owner, held.Since.UTC().Format(time.RFC3339))
		}
		return in, format, err
	}
	sort.Strings(inputs)
	return nil, "", fleetgate.Errorf(fleetgate.ENotFound, "%s has no input stream %s (its input streams: %s)", f.robot.RobotName(), ch.Topic, strings.Join(inputs, ", "))
}

// clientMessage is a message on one of the client's channels: a command for the input stream
// it drives.
func (f *foxgloveSession) clientMessage(data []byte) {
	m, err := foxglove.ParseClientMessage(data)
	if err != nil {
		f.statusOnce(foxglove.LevelError, "binary", err.Error())
		return
	}
	f.mu.Lock()
	p := f.pubs[m.ChannelID]
	var driver Driver
	var stream fleetgate.Stream
	var format, why string
	if p != nil {
		driver, stream, format, why = p.driver, p.stream, p.format, p.why
	}
	f.mu.Unlock()
	switch {
	case p == nil:
		f.statusOnce(foxglove.LevelError, fmt.Sprintf("channel:%d", m.ChannelID), fmt.Sprintf("no client channel %d: advertise it first", m.ChannelID))
		return
	case driver == nil:
		f.statusOnce(foxglove.LevelError, "publish:"+p.ch.Topic, why)
		return
	}
	// JSON comes in a binary message here, where W3 wants a text frame: say it is the one
	// the encoding names.
	cmd, err := teleop.DecodeCommand(stream.Type, format, format == teleop.FormatProtobuf, m.Payload)
	if err == nil {
		err = teleop.LimitCommand(cmd, stream.Limits)
	}
	if err == nil {
		err = driver.Command(cmd)
	}
	if err != nil {
		f.stopPublisher(p, err)
	}
}

func (f *foxgloveSession) unadvertise(id uint32) {
	f.mu.Lock()
	p := f.pubs[id]
	delete(f.pubs, id)
	f.mu.Unlock()
	if p == nil {
		f.status(foxglove.LevelWarning, "", fmt.Sprintf("no client channel %d", id))
		return
	}
	f.stopPublisher(p, nil)
}

// stopPublisher publishes p's zero and lets its lease go, once; why (nil: the client let go)
// is told to the client, and to it again when it sends more on the channel.
func (f *foxgloveSession) stopPublisher(p *fgPub, why error) {
	f.mu.Lock()
	if p.stopped && p.in == nil {
		f.mu.Unlock()
		return
	}
	in, driver := p.in, p.driver
	p.in, p.driver, p.stopped = nil, nil, true
	if why != nil {
		p.why = "publishing on " + p.ch.Topic + " stopped: " + fleetgate.ErrorMessage(why)
	} else {
		p.why = "client channel " + p.ch.Topic + " was unadvertised"
	}
	f.mu.Unlock()
	if in == nil {
		return
	}
	if err := driver.Stop(); err != nil {
		f.ss.log.Error("the zero command did not reach the robot", "stream", in.Name(), "err", err)
	}
	in.Release()
	if why != nil && !f.stopped() {
		f.status(foxglove.LevelError, "publish:"+p.ch.Topic, p.why)
	}
}

// stopPublishers is the session's onStop: every driven stream gets its zero before the client
// hears anything.
func (f *foxgloveSession) stopPublishers() {
	f.mu.Lock()
	f.ended = true
	pubs := slices.Collect(maps.Values(f.pubs))
	f.mu.Unlock()
	for _, p := range pubs {
		f.stopPublisher(p, nil)
	}
}

// watchPublishers runs while the client drives a stream: it pings the client as W3 pings a
// controller (one that stops answering lets go) and stops a publication whose robot went away.
// It alone clears watching, so that a publication that begins as it ends starts another.
func (f *foxgloveSession) watchPublishers() {
	tick := min(tokenCheckPeriod, controllerPingEvery.get())
	lastPing := time.Now()
	var pinging atomic.Bool
	f.every(f.ctx, tick, func(ctx context.Context) bool {
		f.mu.Lock()
		var lost []*fgPub
		driving := false
		for _, p := range f.pubs {
			if p.in == nil {
				continue
			}
			driving = true
			if !p.in.Connected() {
				lost = append(lost, p)
			}
		}
		if !driving {
			f.watching = false
		}
		f.mu.Unlock()
		for _, p := range lost {
			f.stopPublisher(p, errRobotOffline)
		}
		if !driving {
			return false
		}
		if time.Since(lastPing) >= controllerPingEvery.get() && pinging.CompareAndSwap(false, true) {
			lastPing = time.Now()
			go func() {
				defer pinging.Store(false)
				f.pingController(ctx)
			}()
		}
		return true
	})
}
