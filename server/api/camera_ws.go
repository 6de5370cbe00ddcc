package api

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/labstack/echo/v4"
	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/internal/camera/scale"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/gateway"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// W3 output from cameras named by address: source 4 (ONVIF) or 5 (RTSP) with url, 6
// (device) with endpoint, and optional username and password. The checks are the core's
// (gateway.OpenCameraStream); this file reads the query and says how such a socket ends.

// maxCameraParam bounds url, endpoint, username and password.
const maxCameraParam = 2048

// cameraQuery reads the camera a W3 query names by address; nil when it names none (the
// parameters absent or empty). Each parameter may appear once. These sources are output
// only: input with them stays 400.
func cameraQuery(c echo.Context, sel gateway.StreamSelector, input bool) (*gateway.CameraTarget, error) {
	var t gateway.CameraTarget
	for _, p := range []struct {
		name string
		dst  *string
	}{{"url", &t.URL}, {"endpoint", &t.Endpoint}, {"username", &t.Username}, {"password", &t.Password}} {
		v, err := queryParam(c, p.name)
		if err != nil {
			return nil, err
		}
		if len(v) > maxCameraParam {
			return nil, gateway.Errorf(gateway.EInvalid, "%s is longer than %d bytes", p.name, maxCameraParam)
		}
		*p.dst = v
	}
	if t == (gateway.CameraTarget{}) {
		return nil, nil
	}
	if input {
		return nil, gateway.Errorf(gateway.EInvalid, "url, endpoint, username and password name camera sources, which are output only")
	}
	if t.URL != "" && t.Endpoint != "" {
		return nil, gateway.Errorf(gateway.EInvalid, "give url or endpoint, not both")
	}
	t.Source = sel.Source
	if t.Source == 0 {
		t.Source = cameraSource(t)
	}
	switch {
	case t.Source != fleet.SourceONVIF && t.Source != fleet.SourceRTSP && t.Source != fleet.SourceDevice:
		return nil, gateway.Errorf(gateway.EInvalid, "url and endpoint go with source 4 (ONVIF), 5 (RTSP) or 6 (device), not %d", t.Source)
	case t.Source == fleet.SourceDevice && t.Endpoint == "":
		return nil, gateway.Errorf(gateway.EInvalid, "source 6 (device) needs endpoint, such as /dev/video0")
	case t.Source != fleet.SourceDevice && t.URL == "":
		return nil, gateway.Errorf(gateway.EInvalid, "source %d needs url", t.Source)
	}
	return &t, nil
}

// cameraSource infers the source type of a query that gave none, from the address.
func cameraSource(t gateway.CameraTarget) fleet.SourceType {
	if t.Endpoint != "" {
		return fleet.SourceDevice
	}
	if u, err := url.Parse(t.URL); err == nil && (strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https")) {
		return fleet.SourceONVIF
	}
	return fleet.SourceRTSP
}

// openLiveStream opens what a W3 query asks for: a camera by address, or a robot's stream.
func (h *streamSocket) openLiveStream(ctx context.Context, caller *gateway.Caller, robotID string, q liveQuery) (gateway.LiveStream, error) {
	if q.camera != nil {
		return h.gw.OpenCameraStream(ctx, caller, robotID, q.sel, *q.camera)
	}
	return h.gw.OpenLiveStream(ctx, caller, robotID, gateway.LiveStreamRequest{Input: q.input, Stream: q.sel})
}

// feedID is the key of the socket's output feed: the robot's, shared by every client of a
// stream; an ad-hoc camera's frames are the socket's alone, whatever stream name it gave;
// scaled images have a feed per width.
func (s *socket) feedID() string {
	id := s.ls.Robot.ID
	if s.ls.Camera {
		id += "\x00camera\x00" + s.id
	}
	if s.q.maxWidth > 0 {
		id += "\x00width\x00" + strconv.Itoa(s.q.maxWidth)
	}
	return id
}

// outputEnded is how an output socket closes when its subscription ends with err: the
// robot went away (1001), a camera failed (1011, its reason: unreachable, refused
// credentials, a refused address), or the socket itself ended (1000).
func outputEnded(err error) (websocket.StatusCode, string) {
	switch {
	case errors.Is(err, fleet.ErrOffline):
		return closeGoingAway, "robot went offline"
	case errors.Is(err, fleet.ErrUnavailable), errors.Is(err, fleet.ErrInvalid):
		return closeInternal, err.Error()
	default:
		return closeNormal, ""
	}
}

// maxWidth bounds the maxWidth parameter (an extension): pictures are scaled down, never up.
const (
	minScaledWidth = 16
	maxScaledWidth = 8192
)

// maxWidthQuery reads maxWidth (an extension of W3 output): a viewer that wants camera
// images at most that many pixels wide, scaled down here from the shared frames; 0: as
// they come.
func maxWidthQuery(c echo.Context, input bool) (int, error) {
	v, err := queryParam(c, "maxWidth")
	if err != nil || v == "" {
		return 0, err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < minScaledWidth || n > maxScaledWidth {
		return 0, gateway.Errorf(gateway.EInvalid, "maxWidth must be a width in pixels from %d to %d", minScaledWidth, maxScaledWidth)
	}
	if input {
		return 0, gateway.Errorf(gateway.EInvalid, "maxWidth applies to output only")
	}
	return n, nil
}

const compressedImageType = "Platform.Messages.sensor_msgs.CompressedImage"

// scaledImages shares the scaled images of a stream among the viewers that asked for the
// same width: each image is scaled once per width, however many viewers.
type scaledImages struct {
	mu      sync.Mutex
	entries map[scaledKey]*scaledEntry
}

type scaledKey struct {
	feed   string
	stream fleet.StreamKey
	width  int
}

type scaledEntry struct {
	seq    uint64
	once   sync.Once
	sample fleet.Sample
	used   time.Time
}

// scaledSweep is the number of entries past which those unused for scaledIdle are dropped.
const (
	scaledSweep = 64
	scaledIdle  = 10 * time.Second
)

func newScaledImages() *scaledImages { return &scaledImages{entries: map[scaledKey]*scaledEntry{}} }

// scaled is sample as this socket's viewer wants it: scaled down to maxWidth when it is a
// JPEG CompressedImage wider than that, else sample itself.
func (s *socket) scaled(stream fleet.Stream, sample fleet.Sample) fleet.Sample {
	if s.q.maxWidth == 0 || sample.Type != compressedImageType {
		return sample
	}
	e := s.h.scaled.entry(scaledKey{feed: s.feedID(), stream: stream.Key(), width: s.q.maxWidth}, sample.Seq)
	e.once.Do(func() { e.sample = scaleSample(sample, s.q.maxWidth) })
	return e.sample
}

// entry is the shared entry of key for sample seq: the newest sample's is kept, an older
// sample's is the caller's alone.
func (si *scaledImages) entry(key scaledKey, seq uint64) *scaledEntry {
	now := time.Now()
	si.mu.Lock()
	defer si.mu.Unlock()
	e := si.entries[key]
	switch {
	case e != nil && e.seq == seq:
	case e == nil || seq > e.seq:
		e = &scaledEntry{seq: seq}
		si.entries[key] = e
		if len(si.entries) > scaledSweep {
			for k, old := range si.entries {
				if now.Sub(old.used) > scaledIdle && old != e {
					delete(si.entries, k)
				}
			}
		}
	default:
		return &scaledEntry{seq: seq, used: now}
	}
	e.used = now
	return e
}

// scaleSample scales a CompressedImage sample's JPEG; one that is not JPEG, or fails to
// scale, goes out as it came.
func scaleSample(sample fleet.Sample, width int) fleet.Sample {
	var img catalogpb.CompressedImage
	if proto.Unmarshal(sample.Payload, &img) != nil || !strings.Contains(strings.ToLower(img.Format), "jp") {
		return sample
	}
	data, err := scale.JPEG(img.Data, width)
	if err != nil || len(data) == len(img.Data) {
		return sample
	}
	img.Data = data
	payload, err := proto.Marshal(&img)
	if err != nil {
		return sample
	}
	out := sample
	out.Payload = payload
	return out
}
