package camera

import (
	"errors"
	"strings"
)

// What a viewer is told when a camera fails (docs/cameras.md "Faults"), whatever their
// role: what happened, in the camera's terms. A reason never carries a system error's text,
// an address, a resolver or a port's state, which would make the agent a port scanner for
// whoever may type a camera's address; the agent's log keeps the detail.
const (
	wordsNoAnswer       = "the camera did not answer"
	wordsCredentials    = "the camera refused the credentials"
	wordsNoStream       = "the camera has no stream at that address"
	wordsRefusedAddress = "the agent does not open cameras at that address"
	wordsRedirect       = "the camera redirected to an address the agent refuses"
	wordsTransport      = "the camera named an address for its video that the agent refuses"
	wordsNoImage        = "the camera answered but sent no image"
	wordsStalled        = "the camera stopped sending images"
	wordsUnreadable     = "the camera's stream could not be read"
	wordsONVIFFault     = "the ONVIF device refused the request"
	wordsONVIFNoStream  = "the ONVIF device offers no RTSP stream"
	wordsDevice         = "the video device could not be read"
)

// failure is an attempt's error with the words its viewers are told; Error is the detail,
// for the log.
type failure struct {
	words string
	err   error
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// failed gives err the words its viewers are told.
func failed(words string, err error) error { return &failure{words: words, err: err} }

// wordsOf is what a viewer is told of err: the words an attempt gave it where it knew them
// (the relay, ONVIF, the policy, a timeout), else read from ffmpeg's message as a camera's
// answer (credentials refused, no such stream), else that the camera did not answer. An
// address the viewer could probe with (a ffmpeg message, a dial error) reads the same
// whether its port is closed, filtered or speaks something else.
func wordsOf(err error, device bool) string {
	if f, ok := errors.AsType[*failure](err); ok {
		return f.words
	}
	if errors.Is(err, ErrRefusedAddress) {
		return wordsRefusedAddress
	}
	if te, ok := errors.AsType[timeoutError](err); ok {
		return te.words()
	}
	if device {
		return wordsDevice
	}
	text := err.Error()
	switch {
	case strings.Contains(text, "401 Unauthorized") || strings.Contains(text, "403 Forbidden"):
		return wordsCredentials
	case strings.Contains(text, "404 Not Found"):
		return wordsNoStream
	}
	return wordsNoAnswer
}
