package uplink

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/clock/clocktest"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/fleet/fleettest"
	"github.com/fleetgate/fleetgate/internal/logtest"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/internal/video/videotest"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// frameEvery is the test camera's picture interval.
const frameEvery = 30 * time.Millisecond

// maxPictureGap is the longest the viewer's pictures may be apart, by their times: the
// encoder's feeder lets a few pictures go when the machine is busy (200 ms apart at load 13),
// but a step that stops the old encoder before the new one has a picture leaves 1.3 s.
const maxPictureGap = 10 * frameEvery

var laddered = fleetgate.StreamKey{Component: "camera", Name: "front", Source: fleetgate.SourceComponent}

// ladderRig is one H.264 stream's follower as the agent runs it, with real ffmpeg encoders
// of a JPEG camera of 160x120 pictures, a ladder of the test's and a clock it moves; the test
// is the writer.
type ladderRig struct {
	t      *testing.T
	ctx    context.Context
	cancel context.CancelFunc
	l      *liveSender
	sub    *agentSub
	clock  *clocktest.Fake
	logs   *logtest.Buffer
	got    []relayed
	ended  chan struct{}
}

// relayed is an access unit as the writer took it.
type relayed struct {
	fleetgate.Sample
	au []byte
}

func startLadder(t *testing.T, rungs []video.Rung) *ladderRig {
	videotest.NeedFFmpeg(t)
	bot := &fleettest.Robot{ID: "r1", Name: "r1", StreamList: []fleetgate.Stream{
		{Component: "camera", Name: "front", Type: video.ImageType, Direction: fleetgate.Output, Source: fleetgate.SourceComponent},
	}}
	camCtx, stopCamera := context.WithCancel(context.Background())
	cameraDone := make(chan struct{})
	go func() {
		defer close(cameraDone)
		tick := time.NewTicker(frameEvery)
		defer tick.Stop()
		for n := 0; ; n++ {
			bot.Emit(laddered, video.ImageType, gradient(t, n))
			select {
			case <-tick.C:
			case <-camCtx.Done():
				return
			}
		}
	}()
	logs := &logtest.Buffer{}
	s := testSessionOver(&fakeCore{robots: map[string]fleet.Robot{"r1": bot}})
	s.a.cfg.Video = video.New()
	s.a.log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r := &ladderRig{t: t, clock: clocktest.New(), logs: logs, ended: make(chan struct{})}
	r.l = &liveSender{s: s, subs: map[uint64]*agentSub{}, ready: make(chan struct{}, 1), done: make(chan struct{}), rungs: rungs, clock: r.clock}
	r.sub = &agentSub{id: 1, codec: fleetgate.CodecH264, taken: make(chan struct{}, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	r.ctx, r.cancel = ctx, cancel
	go func() {
		defer close(r.ended)
		r.l.followVideo(ctx, r.sub, "r1", bot, laddered)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.ended
		stopCamera()
		<-cameraDone
		s.cancel()
	})
	return r
}

// gradient is a JPEG CompressedImage of 160x120 that changes with n.
func gradient(t *testing.T, n int) []byte {
	img := image.NewGray(image.Rect(0, 0, 160, 120))
	for i := range img.Pix {
		img.Pix[i] = uint8(i%160 + i/160 + 4*n)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Error(err)
	}
	p, _ := proto.Marshal(&catalogpb.CompressedImage{Header: &catalogpb.Header{FrameId: "front"}, Format: "jpeg", Data: b.Bytes()})
	return p
}

// take is the writer taking the next access unit from the stream's slot.
func (r *ladderRig) take() relayed {
	r.t.Helper()
	for {
		select {
		case <-r.l.ready:
		case <-r.ended:
			r.t.Fatalf("the stream ended after %d pictures: %s", len(r.got), r.logs)
		case <-r.ctx.Done():
			r.t.Fatalf("no picture after %d: %s", len(r.got), r.logs)
		}
		r.sub.mu.Lock()
		smp, has := r.sub.pending, r.sub.has
		r.sub.pending, r.sub.has = fleetgate.Sample{}, false
		r.sub.mu.Unlock()
		if !has {
			continue
		}
		r.sub.taken <- struct{}{}
		var v catalogpb.CompressedVideo
		if err := proto.Unmarshal(smp.Payload, &v); err != nil {
			r.t.Fatal(err)
		}
		p := relayed{smp, v.Data}
		r.got = append(r.got, p)
		return p
	}
}

// takeUntilNewSPS takes pictures until a keyframe whose SPS (its size, profile) is not that
// of the stream's first, within limit pictures, and returns its index. It only compares
// bytes: a writer that stalls makes the stream skip pictures.
func (r *ladderRig) takeUntilNewSPS(limit int) int {
	r.t.Helper()
	first := spsOf(r.got[0].au)
	for range limit {
		if p := r.take(); p.Keyframe && !bytes.Equal(spsOf(p.au), first) {
			return len(r.got) - 1
		}
	}
	r.t.Fatalf("no keyframe of new settings in %d pictures: %s", limit, r.logs)
	return 0
}

// spsOf is the SPS NAL unit of an Annex B access unit (nil: none).
func spsOf(au []byte) []byte {
	nals := bytes.Split(au, []byte{0, 0, 1})
	for _, nal := range nals {
		if len(nal) > 0 && nal[0]&0x1f == 7 {
			return bytes.TrimRight(nal, "\x00") // a four-byte start code's zero
		}
	}
	return nil
}

// takeUntilLogged takes pictures until the log says what, within limit pictures.
func (r *ladderRig) takeUntilLogged(what string, limit int) {
	r.t.Helper()
	for range limit {
		if strings.Contains(r.logs.String(), what) {
			return
		}
		r.take()
	}
	r.t.Fatalf("the log never said %q in %d pictures: %s", what, limit, r.logs)
}

// checkSeamless fails unless the pictures from from on are each the next one by number (no
// picture was dropped) and at most maxPictureGap apart by their times; the one at switched
// (-1: none) may be the picture before it again, at the new settings.
func (r *ladderRig) checkSeamless(from, switched int) {
	r.t.Helper()
	for i := max(from, 1); i < len(r.got); i++ {
		prev, p := r.got[i-1], r.got[i]
		if p.Seq != prev.Seq+1 {
			r.t.Errorf("picture %d numbered %d after %d: the viewer would count a drop", i, p.Seq, prev.Seq)
		}
		if gap := p.Time.Sub(prev.Time); gap < 0 || gap == 0 && i != switched || gap > maxPictureGap {
			r.t.Errorf("picture %d is %v after the one before, want within (0, %v]", i, gap, maxPictureGap)
		}
	}
}

// units are the access units of pictures [from, to).
func (r *ladderRig) units(from, to int) [][]byte {
	var us [][]byte
	for _, p := range r.got[from:to] {
		us = append(us, p.au)
	}
	return us
}

// finish ends the stream and returns the log, its account last.
func (r *ladderRig) finish() string {
	r.cancel()
	<-r.ended
	return r.logs.String()
}

// A step of the ladder loses no pictures: the old rung's pictures go until the new encoder's
// keyframe of the next picture, which is the new settings' (96 px wide), and the viewer's
// sequence goes on by one across it. Before, the old encoder stopped first and the viewer
// went without pictures while ffmpeg started (200 to 800 ms).
func TestALadderStepLosesNoPictures(t *testing.T) {
	r := startLadder(t, []video.Rung{{}, {Settings: video.Settings{Width: 96}}})
	for range 15 {
		r.take()
	}
	if !r.got[0].Keyframe {
		t.Fatal("the stream did not start with a keyframe")
	}
	stepAt := len(r.got)
	r.sub.rung.Store(1)
	r.takeUntilLogged("H.264 stream to the cloud steps", 30)
	if !r.sub.stepping.Load() {
		t.Error("the adapter is not told to hold while the new rung's encoder starts")
	}
	// ffmpeg's start and a keyframe interval: 1.4 to 1.9 s of pictures, at 33 a second.
	switched := r.takeUntilNewSPS(150)
	if r.sub.stepping.Load() {
		t.Error("the adapter is still held after the switch")
	}
	for range 10 {
		r.take()
	}
	r.checkSeamless(stepAt, switched)
	if old := videotest.ProbeUnits(t, r.units(0, switched)); old.Width != 160 || old.Frames != switched {
		t.Errorf("before the switch: %v, want %d pictures of 160 px", old, switched)
	}
	if n, now := len(r.got)-switched, videotest.ProbeUnits(t, r.units(switched, len(r.got))); now.Width != 96 || now.Frames != n {
		t.Errorf("from the switch: %v, want %d pictures of 96 px", now, n)
	}
	if switched == stepAt {
		t.Errorf("the switch came with the first picture after the step: the old rung's pictures did not go meanwhile")
	}
	if account := r.finish(); !strings.Contains(account, "steps=1 switching=0s") {
		t.Errorf("the stream's account: %s\nwant one step and no time without pictures", account)
	}
}

// A new rung whose encoder fails (ffmpeg cannot make a picture 1 px wide) costs the viewer no
// picture: the old rung's go on, the log says why, and the step is tried again only after
// rungRetry, at the rung the ladder says then.
func TestAFailedRungKeepsTheOldPictures(t *testing.T) {
	r := startLadder(t, []video.Rung{{}, {Settings: video.Settings{Width: 1}}, {Settings: video.Settings{Width: 96}}})
	for range 10 {
		r.take()
	}
	stepAt := len(r.got)
	r.sub.rung.Store(1)
	const failed = "the next rung's encoder failed"
	r.takeUntilLogged(failed, 300)
	if r.sub.stepping.Load() {
		t.Error("the adapter is still held after the new rung failed")
	}
	r.sub.rung.Store(2)
	for range 30 {
		r.take()
	}
	if strings.Contains(r.logs.String(), "to=2") {
		t.Errorf("a step to rung 2 begun before rungRetry passed: %s", r.logs)
	}
	kept := len(r.got)
	r.clock.Advance(rungRetry)
	switched := r.takeUntilNewSPS(150)
	r.checkSeamless(stepAt, switched)
	if old := videotest.ProbeUnits(t, r.units(0, kept)); old.Width != 160 || old.Frames != kept {
		t.Errorf("while the new rung failed: %v, want %d pictures of 160 px", old, kept)
	}
	if now := videotest.ProbeUnits(t, r.units(switched, len(r.got))); now.Width != 96 {
		t.Errorf("after the retry: %v, want 96 px", now)
	}
	if account := r.finish(); !strings.Contains(account, "steps=1 switching=0s") {
		t.Errorf("the stream's account: %s\nwant the step that was made, and no time without pictures", account)
	}
}

// A step whose new encoder has no keyframe within switchWithin stops the old rung's pictures
// then (on a step down, the link cannot carry them), and the new rung's next keyframe of a
// newer picture goes.
func TestAStepRelaysTheOldRungForBoundedTime(t *testing.T) {
	r := startLadder(t, []video.Rung{{}, {Settings: video.Settings{Width: 96}}})
	for range 10 {
		r.take()
	}
	r.sub.rung.Store(1)
	r.takeUntilLogged("H.264 stream to the cloud steps", 30)
	r.clock.Advance(switchWithin)
	bounded := len(r.got)
	switched := r.takeUntilNewSPS(150)
	// The writer may have one of the old rung's pictures already: the relay checked the
	// clock before it was moved.
	if old := switched - bounded; old > 1 {
		t.Errorf("%d pictures of the old rung went after switchWithin, want at most the one on its way", old)
	}
	// The new encoder's first keyframe (the picture ffmpeg started with) is older than the
	// last that went: the viewer waits for the next rather than go back in time.
	for i := bounded; i <= switched; i++ {
		if prev, p := r.got[i-1], r.got[i]; p.Seq <= prev.Seq || p.Time.Before(prev.Time) {
			t.Errorf("picture %d: number %d at %v after %d at %v", i, p.Seq, p.Time, prev.Seq, prev.Time)
		}
	}
	if account := r.finish(); !strings.Contains(account, "steps=1") {
		t.Errorf("the stream's account: %s\nwant one step", account)
	}
}

// passThroughRobot is a robot whose camera sends H.264 itself (an RTSP camera passed
// through): its access units come from a video topic the test publishes.
type passThroughRobot struct {
	*fleettest.Robot
	frames *fleet.Topic
}

func (r passThroughRobot) Subscribe(context.Context, fleetgate.StreamKey, fleetgate.SubscribeOptions) (*fleet.Subscription, error) {
	return r.frames.Subscribe()
}

// A camera passed through cannot change rung: on a rung that says so it sends its keyframes
// only, from the same subscription (no step begins), and the viewer's numbers show the
// pictures left out.
func TestAPassedThroughCameraSendsKeyframesOnlyBelowTheSecondRung(t *testing.T) {
	watched := make(chan struct{}, 1)
	bot := passThroughRobot{&fleettest.Robot{ID: "r1", Name: "r1"}, fleet.NewVideoTopic(video.Type, func(active bool) {
		if active {
			watched <- struct{}{}
		}
	})}
	logs := &logtest.Buffer{}
	s := testSessionOver(&fakeCore{robots: map[string]fleet.Robot{"r1": bot}})
	s.a.cfg.Video = video.New()
	s.a.log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	l := &liveSender{s: s, subs: map[uint64]*agentSub{}, ready: make(chan struct{}, 1), done: make(chan struct{})}
	sub := &agentSub{id: 1, codec: fleetgate.CodecH264, taken: make(chan struct{}, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		l.followVideo(ctx, sub, "r1", bot, laddered)
	}()
	defer func() { cancel(); <-ended }()
	r := &ladderRig{t: t, ctx: ctx, l: l, sub: sub, logs: logs, ended: ended}
	select { // the follower subscribes before the first frame, which it would miss
	case <-watched:
	case <-ctx.Done():
		t.Fatal("the follower never subscribed")
	}
	at := time.Now()
	payload, _ := proto.Marshal(&catalogpb.CompressedVideo{FrameId: "front", Format: "h264"})
	publish := func(keys string) {
		for _, k := range keys {
			at = at.Add(frameEvery)
			bot.frames.PublishFrame(payload, at, k == 'K', 0)
		}
	}
	publish("KPPK")
	for range 4 {
		r.take()
	}
	sub.rung.Store(2)
	publish("PPKPK")
	for range 2 {
		r.take()
	}
	var got []uint64
	for _, p := range r.got {
		if got = append(got, p.Seq); p.Seq > 4 && !p.Keyframe {
			t.Errorf("picture %d went on a keyframes-only rung", p.Seq)
		}
	}
	if want := []uint64{1, 2, 3, 4, 7, 9}; !slices.Equal(got, want) {
		t.Errorf("the viewer's numbers %v, want %v", got, want)
	}
	if strings.Contains(logs.String(), "steps") {
		t.Errorf("a stream passed through began a step: %s", logs)
	}
}
