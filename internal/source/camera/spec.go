package camera

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/fleetgate/fleetgate"
)

// Spec is where a camera is and how to reach it. Credentials travel beside the address,
// never in it, so that the address can be shown and logged.
type Spec struct {
	Source fleetgate.SourceType // fleetgate.SourceONVIF, SourceRTSP or SourceDevice
	// URL is an rtsp:// or rtsps:// stream, or the http(s):// service of an ONVIF device,
	// without credentials and without the transport parameter, which is ours.
	URL string
	// Device is a video device path such as /dev/video0 (SourceDevice).
	Device   string
	Username string
	Password string
	// UDP asks for RTSP over UDP (transport=udp in the configured URL); TCP otherwise, which
	// passes NAT and firewalls and loses no packets.
	UDP bool
}

// Public is the address shown in stream descriptors and logs.
func (s Spec) Public() string {
	if s.Source == fleetgate.SourceDevice {
		return s.Device
	}
	if !s.UDP {
		return s.URL
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		return s.URL
	}
	q := u.Query()
	q.Set("transport", "udp")
	u.RawQuery = q.Encode()
	return u.String()
}

// Limits of what a camera address may be.
const (
	maxURL        = 2048
	maxCredential = 256
)

// ErrSyntax is wrapped by every error of ParseURL and CheckCredentials.
var ErrSyntax = errors.New("bad camera address")

func syntaxf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrSyntax, fmt.Sprintf(format, args...))
}

// videoDevice is what a device endpoint may name: a V4L2 node, or one of udev's stable links
// to it. Nothing else under /dev (or outside it) ever reaches ffmpeg.
var videoDevice = regexp.MustCompile(`^/dev/(video[0-9]{1,3}|v4l/by-(id|path)/[A-Za-z0-9._:+-]{1,200})$`)

// ParseURL reads a camera address: an rtsp:// or rtsps:// stream, an http(s):// ONVIF device
// service, or a video device path. Credentials in the URL's user part move to the Spec's
// Username and Password; transport=udp in the query selects RTSP over UDP.
func ParseURL(raw string) (Spec, error) {
	if len(raw) > maxURL {
		return Spec{}, syntaxf("longer than %d bytes", maxURL)
	}
	if strings.IndexFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return Spec{}, syntaxf("spaces or control characters in %q", redactURL(raw))
	}
	if strings.HasPrefix(raw, "/") {
		return ParseDevice(raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Spec{}, syntaxf("%q is not a URL", redactURL(raw))
	}
	var s Spec
	switch strings.ToLower(u.Scheme) {
	case "rtsp", "rtsps":
		s.Source = fleetgate.SourceRTSP
	case "http", "https":
		s.Source = fleetgate.SourceONVIF
	default:
		return Spec{}, syntaxf("%q: cameras are rtsp://, rtsps://, http(s):// (ONVIF) or a video device such as /dev/video0", redactURL(raw))
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return Spec{}, syntaxf("%q has no host", redactURL(raw))
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return Spec{}, syntaxf("%q: port %s", redactURL(raw), p)
		}
	}
	if u.Fragment != "" || u.RawFragment != "" || strings.Contains(raw, "#") {
		return Spec{}, syntaxf("%q has a fragment", redactURL(raw))
	}
	if u.User != nil {
		s.Username = u.User.Username()
		s.Password, _ = u.User.Password()
		u.User = nil
	}
	q := u.Query()
	if t := q.Get("transport"); q.Has("transport") {
		switch strings.ToLower(t) {
		case "udp":
			s.UDP = true
		case "tcp":
		default:
			return Spec{}, syntaxf("transport=%s: tcp or udp", t)
		}
		q.Del("transport")
		u.RawQuery = q.Encode()
	}
	u.Scheme = strings.ToLower(u.Scheme)
	s.URL = u.String()
	return s, CheckCredentials(s.Username, s.Password)
}

// ParseDevice reads a video device path.
func ParseDevice(p string) (Spec, error) {
	if path.Clean(p) != p || !videoDevice.MatchString(p) {
		return Spec{}, syntaxf("%q is not a video device (such as /dev/video0)", p)
	}
	return Spec{Source: fleetgate.SourceDevice, Device: p}, nil
}

// CheckCredentials refuses credentials that could not travel in a URL's user part intact.
func CheckCredentials(username, password string) error {
	if len(username) > maxCredential || len(password) > maxCredential {
		return syntaxf("username and password are limited to %d bytes", maxCredential)
	}
	if strings.ContainsFunc(username+password, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return syntaxf("control characters in the username or password")
	}
	if password != "" && username == "" {
		return syntaxf("a password needs a username")
	}
	return nil
}

// hostOf is the host of a parsed Spec's URL, without brackets or port.
func hostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// withCredentials returns rawURL with the credentials in its user part: only ever written to
// ffmpeg's private input (see ffconcat), never to a command line or a log.
func withCredentials(rawURL, username, password string) (string, error) {
	if username == "" {
		return rawURL, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	u.User = url.UserPassword(username, password)
	return u.String(), nil
}

// userinfo matches the user part of URLs in text, so that it can be blanked.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s'"]*@`)

// redactURL blanks any credentials in URLs inside s.
func redactURL(s string) string { return userinfo.ReplaceAllString(s, "${1}REDACTED@") }

// redact blanks credentials in a text from ffmpeg or a device: URL user parts, and the
// secrets themselves wherever they appear (as typed, and URL-escaped).
func redact(s string, secrets ...string) string {
	s = redactURL(s)
	for _, secret := range secrets {
		if len(secret) < 3 {
			continue // a one- or two-letter secret would blank half the text; the URL form is gone already
		}
		for _, form := range []string{secret, url.PathEscape(secret), url.QueryEscape(secret), url.UserPassword("x", secret).String()[2:]} {
			s = strings.ReplaceAll(s, form, "REDACTED")
		}
	}
	return s
}
