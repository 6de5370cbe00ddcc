package rosgraph

import (
	"context"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/door"
	"github.com/fleetgate/fleetgate/internal/msgs"
	"github.com/fleetgate/fleetgate/internal/source/rosmsg"
)

// outbound is an input topic the agent writes: its writer, made on first use and kept.
type outbound struct {
	w       Writer
	rosType string
	codec   *rosmsg.Codec
}

// Publish sends a catalog message to an input topic as its ROS type. It takes only what
// passed the door: drive commands come held to the stream's Limits, paced and leased.
func (r *Robot) Publish(ctx context.Context, cmd door.Command) error {
	if _, ok := cmd.Cancels(); ok {
		return r.cancel(ctx)
	}
	key, typ, payload, err := cmd.Open()
	if err != nil {
		return err
	}
	t, err := r.find(ctx, key)
	if err != nil {
		return err
	}
	if t.Direction != fleetgate.Input {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s is an output topic: other nodes publish it", t.Name)
	}
	if typ != t.streamType() {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s takes %s, not %s", t.Name, t.streamType(), typ)
	}
	if t.catalogType() == "" {
		return fleetgate.Errorf(fleetgate.EInvalid, "%s is of type %s, which the message catalog lacks: it cannot be written", t.Name, t.Type)
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
	if err := out.w.Write(data); err != nil {
		return fleetgate.Errorf(fleetgate.EUnavailable, "publishing to %s: %v", t.Name, err)
	}
	r.readyCancel(ctx, t)
	return nil
}

// outboundFor returns the writer of an input topic, made on first use; a topic that came
// back with another type gets a new one.
func (r *Robot) outboundFor(ctx context.Context, t Topic) (*outbound, error) {
	return r.outboundWith(ctx, t, func() (*rosmsg.Codec, error) { return r.transport.Codec(t.Type) })
}

// outboundWith is outboundFor with the codec of a type the transport's Codec does not make.
func (r *Robot) outboundWith(ctx context.Context, t Topic, codec func() (*rosmsg.Codec, error)) (*outbound, error) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	if out, ok := r.outbound[t.Name]; ok && out.rosType == t.Type {
		return out, nil
	} else if ok {
		out.w.Close()
		delete(r.outbound, t.Name)
	}
	c, err := codec()
	if err != nil {
		return nil, fleetgate.Errorf(fleetgate.EInvalid, "%s: %v", t.Name, err)
	}
	w, err := r.transport.Advertise(ctx, t, c)
	if err != nil {
		return nil, fleetgate.Errorf(fleetgate.EUnavailable, "writing to %s: %v", t.Name, err)
	}
	out := &outbound{w: w, rosType: t.Type, codec: c}
	r.outbound[t.Name] = out
	return out, nil
}
