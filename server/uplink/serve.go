package uplink

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/fleet"
	"github.com/fleetgate/fleetgate/internal/link"
	"github.com/fleetgate/fleetgate/internal/video"
	"github.com/fleetgate/fleetgate/proto/linkpb"
)

// maxDeadline caps the deadline a request may ask for (uploads carry their own).
const maxDeadline = 30 * time.Second

// serve answers one request in its own goroutine, at most maxConcurrentRequests at once; a
// request over that is answered UNAVAILABLE at once rather than queued behind slow ones.
func (s *session) serve(req *linkpb.Request) {
	select {
	case s.sem <- struct{}{}:
	default:
		s.answer(&linkpb.Response{Id: req.GetId(), Error: link.ErrorToWire(fleetgate.Errorf(fleetgate.EUnavailable, "the agent is busy"))})
		return
	}
	s.reqs.Add(1)
	go func() {
		defer s.reqs.Done()
		defer func() { <-s.sem }()
		deadline := time.Duration(req.GetDeadlineMs()) * time.Millisecond
		if deadline <= 0 || deadline > maxDeadline && req.GetUpload() == nil {
			deadline = maxDeadline
		}
		ctx, cancel := context.WithTimeout(s.ctx, deadline)
		defer cancel()
		resp, err := s.handle(ctx, req)
		if errors.Is(err, context.DeadlineExceeded) {
			name := req.GetRobotId()
			if r, ok := s.a.cfg.Core.HostedRobot(name); ok {
				name = r.Info().Name
			}
			err = fleetgate.Errorf(fleetgate.EUnavailable, "robot %q did not answer its agent within %s", name, deadline)
		}
		if err != nil {
			if fleetgate.ErrorCode(err) == fleetgate.EInternal {
				// The cloud is told "internal error"; what went wrong is for this log.
				s.a.log.Error("a request of the cloud failed", "robot", req.GetRobotId(), "err", err)
			}
			resp = &linkpb.Response{Error: link.ErrorToWire(err)}
		}
		resp.Id = req.GetId()
		s.answer(resp)
	}()
}

func (s *session) answer(resp *linkpb.Response) {
	if err := s.write(&linkpb.Frame{Body: &linkpb.Frame_Response{Response: resp}}, 10*time.Second); err != nil {
		s.a.log.Debug("answering the cloud failed", "err", err)
	}
}

func (s *session) handle(ctx context.Context, req *linkpb.Request) (*linkpb.Response, error) {
	robot, ok := s.a.cfg.Core.HostedRobot(req.GetRobotId())
	if !ok {
		return nil, fleetgate.Errorf(fleetgate.EOffline, "robot %s is not connected to this agent", req.GetRobotId())
	}
	switch op := req.GetOp().(type) {
	case *linkpb.Request_TakeControl:
		return s.takeControl(ctx, req.GetRobotId(), op.TakeControl)
	case *linkpb.Request_Controls:
		return s.heldControls(req.GetRobotId()), nil
	case *linkpb.Request_Upload:
		done, err := s.upload(ctx, robot, req.GetId(), op.Upload)
		if err != nil {
			return nil, err
		}
		return &linkpb.Response{Result: &linkpb.Response_Upload{Upload: done}}, nil
	case *linkpb.Request_Streams:
		return s.streams(ctx, robot)
	case *linkpb.Request_TeleopSettings:
		return s.teleopSettings(ctx, req.GetRobotId(), op.TeleopSettings)
	case *linkpb.Request_Publish:
		// The agent's door decides, through the core; the cloud's check is never trusted.
		p := op.Publish
		if err := s.a.cfg.Core.UploadFromCloud(ctx, req.GetRobotId(), link.KeyFromWire(p.GetKey()), p.GetType(), p.GetPayload(), p.GetUser()); err != nil {
			return nil, err
		}
		return &linkpb.Response{Result: &linkpb.Response_Done{Done: &linkpb.Empty{}}}, nil
	default:
		return link.Answer(ctx, robot, req, nil)
	}
}

// streams lists robot's streams with the codecs this agent offers each camera stream in: the
// cloud relays what the agent sends, so the agent's ffmpeg decides, not the cloud's.
func (s *session) streams(ctx context.Context, robot fleet.Robot) (*linkpb.Response, error) {
	listed, err := robot.Streams(ctx)
	if err != nil {
		return nil, err
	}
	streams := slices.Clone(listed) // the robot's own list is not ours to write
	for i := range streams {
		if streams[i].Codecs == 0 {
			streams[i].Codecs = fleetgate.CodecsNamed(video.Codecs(streams[i].Type, s.a.cfg.Video.CanEncode()))
		}
	}
	return &linkpb.Response{Result: &linkpb.Response_Streams{Streams: link.StreamsToWire(streams)}}, nil
}

// upload sends bytes [offset, size) of a resource file as chunks, in the bulk lane, and
// answers with the size and SHA-256 of bytes [0, size): the cloud checks its copy, resumed,
// grown from an earlier version or not, against them.
// A file that no longer has size bytes is INVALID: the cloud starts over with the new one.
func (s *session) upload(ctx context.Context, robot fleet.Robot, requestID uint64, u *linkpb.ResourceUpload) (*linkpb.UploadDone, error) {
	size, offset := u.GetSize(), u.GetOffset()
	if offset < 0 || size < 0 || offset > size {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "upload range [%d, %d) is not valid", offset, size)
	}
	f, res, err := robot.OpenResource(ctx, u.GetResourceId())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if res.Size < size {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "resource %s has %d bytes, fewer than the %d listed: it changed", res.Name, res.Size, size)
	}
	// A resumed upload hashes what the cloud already has first: on a slow computer that
	// takes a while for a big file, so the request's deadline is checked as it goes.
	h := sha256.New()
	for done := int64(0); done < offset; {
		n, err := io.CopyN(h, f, min(offset-done, 8<<20))
		done += n
		if err != nil {
			return nil, fleetgate.Errorf(fleetgate.EInvalid, "reading resource %s: %v", res.Name, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, &fleetgate.Error{Code: fleetgate.EUnavailable, Message: err.Error(), Err: err}
		}
	}
	if want := u.GetPrefixSha256(); want != "" && !strings.EqualFold(want, hex.EncodeToString(h.Sum(nil))) {
		// The cloud's copy is of an earlier version that this one did not grow from.
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "resource %s changed within its first %d bytes: it is sent whole", res.Name, offset)
	}
	buf := make([]byte, bulkChunk)
	for pos := offset; pos < size; {
		// The bulk lane: the chunk goes when control and live frames leave room (lanes.go).
		if err := s.bulkTurn(ctx); err != nil {
			return nil, &fleetgate.Error{Code: fleetgate.EUnavailable, Message: "the upload was stopped: " + err.Error(), Err: err}
		}
		n, err := io.ReadFull(f, buf[:min(int64(len(buf)), size-pos)])
		if err != nil {
			return nil, fleetgate.Errorf(fleetgate.EInvalid, "reading resource %s: %v", res.Name, err)
		}
		h.Write(buf[:n])
		chunk := &linkpb.Frame{Body: &linkpb.Frame_Chunk{Chunk: &linkpb.ResourceChunk{RequestId: requestID, Offset: pos, Data: buf[:n]}}}
		if err := s.write(chunk, 30*time.Second); err != nil {
			return nil, fmt.Errorf("sending resource %s: %w", res.Name, err)
		}
		pos += int64(n)
		if err := ctx.Err(); err != nil {
			return nil, &fleetgate.Error{Code: fleetgate.EUnavailable, Message: err.Error(), Err: err}
		}
	}
	return &linkpb.UploadDone{Size: size, Sha256: hex.EncodeToString(h.Sum(nil))}, nil
}

// teleopSettings answers a cloud user's read or change of a hosted robot's thresholds, which
// the core keeps and checks (TeleopSettingsKeeper).
func (s *session) teleopSettings(ctx context.Context, robotID string, op *linkpb.TeleopSettingsRequest) (*linkpb.Response, error) {
	keeper, ok := s.a.cfg.Core.(TeleopSettingsKeeper)
	if !ok {
		return nil, fleetgate.Errorf(fleetgate.EConflict, "this agent keeps no teleop settings (a demo agent governs by its flags)")
	}
	req, err := link.TeleopSettingsRequestFromWire(op)
	if err != nil {
		return nil, err
	}
	settings, err := keeper.TeleopSettingsForCloud(ctx, robotID, req)
	if err != nil {
		return nil, err
	}
	return &linkpb.Response{Result: &linkpb.Response_TeleopSettings{TeleopSettings: link.TeleopSettingsToWire(settings)}}, nil
}
