package xmlrpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
)

// Client calls XML-RPC methods over HTTP.
type Client struct {
	HTTP *http.Client // nil: http.DefaultClient
}

// Call invokes method at url with params and returns the response's value. The context's
// deadline bounds the whole exchange.
func (c *Client) Call(ctx context.Context, url, method string, params ...any) (any, error) {
	body, err := EncodeCall(method, params...)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "text/xml")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, fmt.Errorf("%s %s: HTTP %s", url, method, resp.Status)
	}
	v, err := DecodeResponse(resp.Body)
	// Drain a little so the connection can be reused.
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", url, method, err)
	}
	return v, nil
}

// Method answers one XML-RPC method: its value, or an error (sent as a fault; a *Fault as it is).
type Method func(ctx context.Context, params []any) (any, error)

// Handler serves XML-RPC methods over HTTP POST at any path.
type Handler struct {
	Methods map[string]Method
	Log     *slog.Logger // may be nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "XML-RPC takes POST", http.StatusMethodNotAllowed)
		return
	}
	method, params, err := DecodeCall(http.MaxBytesReader(w, r.Body, MaxMessage))
	var out []byte
	switch {
	case err != nil:
		out = EncodeFault(&Fault{Code: -32700, Message: err.Error()})
	case h.Methods[method] == nil:
		out = EncodeFault(&Fault{Code: -32601, Message: "unknown method " + method})
	default:
		v, err := h.Methods[method](r.Context(), params)
		if err == nil {
			out, err = EncodeResponse(v)
		}
		if err != nil {
			var f *Fault
			if !errors.As(err, &f) {
				f = &Fault{Code: -32500, Message: err.Error()}
			}
			out = EncodeFault(f)
			if h.Log != nil {
				h.Log.Debug("XML-RPC method failed", "method", method, "err", err)
			}
		}
	}
	w.Header().Set("Content-Type", "text/xml")
	w.Write(out)
}
