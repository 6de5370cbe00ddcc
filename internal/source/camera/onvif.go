package camera

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ONVIF asks an ONVIF device (Profile S) for its RTSP stream: GetCapabilities for the
// address of the media service (the device service itself when the device does not say),
// GetProfiles, then GetStreamUri of the first profile. Every request is SOAP 1.2 with a
// WS-Security UsernameToken whose password is sent only as a digest.
type ONVIF struct {
	URL      string // the device service, such as http://192.0.2.10/onvif/device_service
	Username string
	Password string
	Client   *http.Client
	// Now is the clock of the token's Created time; nil: time.Now.
	Now func() time.Time
}

// SOAP namespaces and actions of the requests.
const (
	nsSOAP   = "http://www.w3.org/2003/05/soap-envelope"
	nsDevice = "http://www.onvif.org/ver10/device/wsdl"
	nsMedia  = "http://www.onvif.org/ver10/media/wsdl"
	nsSchema = "http://www.onvif.org/ver10/schema"
	nsWSSE   = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"
	nsWSU    = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"
	// PasswordDigestType and NonceEncoding are the UsernameToken profile's URIs.
	PasswordDigestType = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest"
	NonceEncoding      = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary"
)

// maxSOAPResponse bounds an ONVIF answer; a profile list is a few KiB.
const maxSOAPResponse = 1 << 20

// StreamURI returns the RTSP URI of the device's first media profile, as the device wrote it
// (without credentials: the caller adds the same ones for RTSP, as ONVIF devices expect).
func (o *ONVIF) StreamURI(ctx context.Context) (string, error) {
	media := o.URL
	var caps struct {
		XAddr string `xml:"Body>GetCapabilitiesResponse>Capabilities>Media>XAddr"`
	}
	if err := o.call(ctx, o.URL, nsDevice+"/GetCapabilities",
		`<GetCapabilities xmlns="`+nsDevice+`"><Category>Media</Category></GetCapabilities>`, &caps); err == nil && caps.XAddr != "" {
		if sameOrigin(caps.XAddr, o.URL) {
			media = strings.TrimSpace(caps.XAddr)
		}
	} else if errors.Is(err, errNotAuthorized) {
		return "", err
	}
	var profiles struct {
		Profiles []struct {
			Token string `xml:"token,attr"`
			Video *struct {
				Encoding string `xml:"Encoding"`
			} `xml:"VideoEncoderConfiguration"`
		} `xml:"Body>GetProfilesResponse>Profiles"`
	}
	if err := o.call(ctx, media, nsMedia+"/GetProfiles", `<GetProfiles xmlns="`+nsMedia+`"/>`, &profiles); err != nil {
		return "", err
	}
	token := ""
	for _, p := range profiles.Profiles {
		if p.Token != "" && (token == "" || p.Video != nil) {
			token = p.Token
			if p.Video != nil {
				break // the first profile with video
			}
		}
	}
	if token == "" {
		return "", failed(wordsONVIFNoStream, errors.New("the ONVIF device has no media profile"))
	}
	var stream struct {
		URI string `xml:"Body>GetStreamUriResponse>MediaUri>Uri"`
	}
	body := `<GetStreamUri xmlns="` + nsMedia + `"><StreamSetup><Stream xmlns="` + nsSchema + `">RTP-Unicast</Stream>` +
		`<Transport xmlns="` + nsSchema + `"><Protocol>RTSP</Protocol></Transport></StreamSetup>` +
		`<ProfileToken>` + xmlText(token) + `</ProfileToken></GetStreamUri>`
	if err := o.call(ctx, media, nsMedia+"/GetStreamUri", body, &stream); err != nil {
		return "", err
	}
	uri := strings.TrimSpace(stream.URI)
	if uri == "" {
		return "", failed(wordsONVIFNoStream, errors.New("the ONVIF device answered no stream URI"))
	}
	return uri, nil
}

// sameOrigin reports whether the media service the device names is on the device itself:
// a device that names another host is not followed (it could point the agent anywhere).
func sameOrigin(a, b string) bool {
	return hostOf(a) != "" && strings.EqualFold(hostOf(a), hostOf(b))
}

// errNotAuthorized is an ONVIF refusal of the credentials.
var errNotAuthorized = errors.New("the ONVIF device refused the credentials")

// call posts one SOAP request and decodes the answer into out. Its errors say, in words
// for viewers, whether the device refused (the credentials, the request) or did not answer
// as an ONVIF device at all: an address that is no such device reads the same whatever
// listens there.
func (o *ONVIF) call(ctx context.Context, endpoint, action, body string, out any) error {
	envelope := `<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="` + nsSOAP + `"><s:Header>` +
		o.security() + `</s:Header><s:Body>` + body + `</s:Body></s:Envelope>`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(envelope))
	if err != nil {
		return fmt.Errorf("ONVIF request: %w", err)
	}
	req.Header.Set("Content-Type", `application/soap+xml; charset=utf-8; action="`+action+`"`)
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		err = fmt.Errorf("ONVIF device: %w", unwrapURLError(err))
		if errors.Is(err, ErrRefusedAddress) {
			return err
		}
		return failed(wordsNoAnswer, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSOAPResponse+1))
	if err != nil {
		return failed(wordsNoAnswer, fmt.Errorf("ONVIF device: %w", err))
	}
	if len(data) > maxSOAPResponse {
		return failed(wordsNoAnswer, errors.New("ONVIF device: answer over 1 MiB"))
	}
	var fault struct {
		Subcode string `xml:"Body>Fault>Code>Subcode>Value"`
		Reason  string `xml:"Body>Fault>Reason>Text"`
	}
	if xml.Unmarshal(data, &fault) == nil && (fault.Reason != "" || fault.Subcode != "") {
		if strings.Contains(fault.Subcode, "NotAuthorized") || resp.StatusCode == http.StatusUnauthorized {
			return failed(wordsCredentials, fmt.Errorf("%w (%s)", errNotAuthorized, oneLine(fault.Reason)))
		}
		return failed(wordsONVIFFault, fmt.Errorf("ONVIF device: %s", oneLine(cmp.Or(fault.Reason, fault.Subcode))))
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return failed(wordsCredentials, fmt.Errorf("%w (HTTP %d)", errNotAuthorized, resp.StatusCode))
	case resp.StatusCode != http.StatusOK:
		return failed(wordsNoAnswer, fmt.Errorf("ONVIF device: HTTP %d", resp.StatusCode))
	}
	if err := xml.Unmarshal(data, out); err != nil {
		return failed(wordsNoAnswer, fmt.Errorf("ONVIF device: unreadable answer: %w", err))
	}
	return nil
}

// security is the WS-Security header: a UsernameToken with the password digest
// Base64(SHA-1(nonce + created + password)); none without a username.
func (o *ONVIF) security() string {
	if o.Username == "" {
		return ""
	}
	nonce := make([]byte, 16)
	rand.Read(nonce)
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	created := now().UTC().Format("2006-01-02T15:04:05.000Z")
	h := sha1.New()
	h.Write(nonce)
	h.Write([]byte(created))
	h.Write([]byte(o.Password))
	digest := base64.StdEncoding.EncodeToString(h.Sum(nil))
	return `<wsse:Security s:mustUnderstand="1" xmlns:wsse="` + nsWSSE + `" xmlns:wsu="` + nsWSU + `"><wsse:UsernameToken>` +
		`<wsse:Username>` + xmlText(o.Username) + `</wsse:Username>` +
		`<wsse:Password Type="` + PasswordDigestType + `">` + digest + `</wsse:Password>` +
		`<wsse:Nonce EncodingType="` + NonceEncoding + `">` + base64.StdEncoding.EncodeToString(nonce) + `</wsse:Nonce>` +
		`<wsu:Created>` + created + `</wsu:Created></wsse:UsernameToken></wsse:Security>`
}

func xmlText(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxReason {
		s = s[:maxReason]
	}
	return s
}

// unwrapURLError drops net/http's "Post URL:" prefix: the URL is in the camera's log
// attributes already, and the reason is what a viewer needs.
func unwrapURLError(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
