package cameratest

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// ONVIFDevice is a test ONVIF device: it answers GetCapabilities, GetProfiles and
// GetStreamUri with StreamURI, each only with a WS-Security UsernameToken whose password
// digest matches, and WS-Discovery probes when asked to.
type ONVIFDevice struct {
	URL       string // the device service
	StreamURI string
	User      string
	Password  string
	Name      string

	srv *http.Server

	mu        sync.Mutex
	requests  []string // SOAP operations answered or refused, in order
	plaintext bool     // a request carried the password itself
}

// StartONVIF serves a device on 127.0.0.1 (or in whatever network the test runs).
func StartONVIF(t testing.TB, streamURI, user, password string) *ONVIFDevice {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &ONVIFDevice{StreamURI: streamURI, User: user, Password: password, Name: "Test Camera",
		URL: "http://" + ln.Addr().String() + "/onvif/device_service"}
	d.srv = &http.Server{Handler: d, ReadHeaderTimeout: 5 * time.Second}
	go d.srv.Serve(ln)
	t.Cleanup(func() { d.srv.Close() })
	return d
}

// Requests lists the operations the device was asked for, with "refused " before those
// whose token did not check.
func (d *ONVIFDevice) Requests() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.requests...)
}

// SawPlaintext reports whether any request sent the password instead of its digest.
func (d *ONVIFDevice) SawPlaintext() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.plaintext
}

type soapRequest struct {
	Token struct {
		Username string `xml:"Username"`
		Password struct {
			Type  string `xml:"Type,attr"`
			Value string `xml:",chardata"`
		} `xml:"Password"`
		Nonce   string `xml:"Nonce"`
		Created string `xml:"Created"`
	} `xml:"Header>Security>UsernameToken"`
	Body struct {
		Inner []struct {
			XMLName      xml.Name
			ProfileToken string `xml:"ProfileToken"`
			Category     string `xml:"Category"`
		} `xml:",any"`
	} `xml:"Body"`
}

const digestType = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordDigest"

// checkToken verifies the UsernameToken: the digest is Base64(SHA-1(nonce + created +
// password)), the nonce sent in Base64, and Created within five minutes of now.
func (d *ONVIFDevice) checkToken(r *soapRequest) error {
	tok := r.Token
	if tok.Username == "" {
		return fmt.Errorf("no UsernameToken")
	}
	if tok.Password.Type != digestType {
		d.plaintext = true
		return fmt.Errorf("password not sent as a digest")
	}
	nonce, err := base64.StdEncoding.DecodeString(strings.TrimSpace(tok.Nonce))
	if err != nil || len(nonce) == 0 {
		return fmt.Errorf("bad nonce")
	}
	created, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(tok.Created))
	if err != nil || time.Since(created).Abs() > 5*time.Minute {
		return fmt.Errorf("bad Created time %q", tok.Created)
	}
	h := sha1.Sum([]byte(string(nonce) + strings.TrimSpace(tok.Created) + d.Password))
	if tok.Username != d.User || strings.TrimSpace(tok.Password.Value) != base64.StdEncoding.EncodeToString(h[:]) {
		return fmt.Errorf("wrong username or password")
	}
	return nil
}

func (d *ONVIFDevice) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	var r soapRequest
	if req.Method != http.MethodPost || xml.Unmarshal(body, &r) != nil || len(r.Body.Inner) != 1 {
		http.Error(w, "not a SOAP request", http.StatusBadRequest)
		return
	}
	op := r.Body.Inner[0]
	d.mu.Lock()
	err := d.checkToken(&r)
	if err != nil {
		d.requests = append(d.requests, "refused "+op.XMLName.Local)
	} else {
		d.requests = append(d.requests, op.XMLName.Local)
	}
	d.mu.Unlock()
	w.Header().Set("Content-Type", "application/soap+xml; charset=utf-8")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, envelope, `<s:Fault><s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value>ter:NotAuthorized</s:Value></s:Subcode></s:Code>`+
			`<s:Reason><s:Text xml:lang="en">Sender not authorized: `+xmlEscape(err.Error())+`</s:Text></s:Reason></s:Fault>`)
		return
	}
	base := strings.TrimSuffix(d.URL, "/onvif/device_service")
	switch op.XMLName.Local {
	case "GetCapabilities":
		fmt.Fprintf(w, envelope, `<tds:GetCapabilitiesResponse><tds:Capabilities><tt:Media><tt:XAddr>`+base+`/onvif/media</tt:XAddr>`+
			`<tt:StreamingCapabilities><tt:RTP_RTSP_TCP>true</tt:RTP_RTSP_TCP></tt:StreamingCapabilities></tt:Media></tds:Capabilities></tds:GetCapabilitiesResponse>`)
	case "GetProfiles":
		if req.URL.Path != "/onvif/media" {
			http.Error(w, "GetProfiles is a media service operation", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, envelope, `<trt:GetProfilesResponse>`+
			`<trt:Profiles token="audio_only" fixed="true"><tt:Name>audio</tt:Name></trt:Profiles>`+
			`<trt:Profiles token="main_stream" fixed="true"><tt:Name>main</tt:Name><tt:VideoEncoderConfiguration token="v1"><tt:Encoding>H264</tt:Encoding></tt:VideoEncoderConfiguration></trt:Profiles>`+
			`</trt:GetProfilesResponse>`)
	case "GetStreamUri":
		if op.ProfileToken != "main_stream" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, envelope, `<s:Fault><s:Code><s:Value>s:Sender</s:Value></s:Code><s:Reason><s:Text>no such profile with video</s:Text></s:Reason></s:Fault>`)
			return
		}
		fmt.Fprintf(w, envelope, `<trt:GetStreamUriResponse><trt:MediaUri><tt:Uri>`+xmlEscape(d.StreamURI)+`</tt:Uri>`+
			`<tt:InvalidAfterConnect>false</tt:InvalidAfterConnect><tt:Timeout>PT0S</tt:Timeout></trt:MediaUri></trt:GetStreamUriResponse>`)
	default:
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, envelope, `<s:Fault><s:Code><s:Value>s:Sender</s:Value></s:Code><s:Reason><s:Text>unknown operation</s:Text></s:Reason></s:Fault>`)
	}
}

const envelope = `<?xml version="1.0" encoding="UTF-8"?>` +
	`<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:tds="http://www.onvif.org/ver10/device/wsdl" ` +
	`xmlns:trt="http://www.onvif.org/ver10/media/wsdl" xmlns:tt="http://www.onvif.org/ver10/schema" ` +
	`xmlns:ter="http://www.onvif.org/ver10/error"><s:Body>%s</s:Body></s:Envelope>`

func xmlEscape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// ServeDiscovery answers WS-Discovery probes for network video transmitters with d's
// address, on every multicast-capable interface, until the test ends. Tests run it only in
// a network namespace of their own: multicast never leaves the test.
func (d *ONVIFDevice) ServeDiscovery(t testing.TB) {
	t.Helper()
	group := &net.UDPAddr{IP: net.ParseIP("239.255.255.250"), Port: 3702}
	ifaces, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	var ifi *net.Interface
	for i := range ifaces {
		if ifaces[i].Flags&net.FlagMulticast != 0 && ifaces[i].Flags&net.FlagUp != 0 {
			ifi = &ifaces[i]
			break
		}
	}
	if ifi == nil {
		t.Fatal("no multicast interface to answer WS-Discovery on")
	}
	conn, err := net.ListenMulticastUDP("udp4", ifi, group)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, from, err := conn.ReadFromUDP(buf)
			if err != nil {
				return
			}
			var probe struct {
				MessageID string `xml:"Header>MessageID"`
				Types     string `xml:"Body>Probe>Types"`
			}
			if xml.Unmarshal(buf[:n], &probe) != nil || !strings.Contains(probe.Types, "NetworkVideoTransmitter") {
				continue
			}
			answer := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>`+
				`<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery">`+
				`<s:Header><a:Action>http://schemas.xmlsoap.org/ws/2005/04/discovery/ProbeMatches</a:Action><a:RelatesTo>%s</a:RelatesTo></s:Header>`+
				`<s:Body><d:ProbeMatches><d:ProbeMatch><a:EndpointReference><a:Address>urn:uuid:6f1c2a4e-0000-4000-8000-000000000001</a:Address></a:EndpointReference>`+
				`<d:Types>dn:NetworkVideoTransmitter</d:Types><d:Scopes>onvif://www.onvif.org/type/video_encoder onvif://www.onvif.org/name/%s</d:Scopes>`+
				`<d:XAddrs>%s</d:XAddrs><d:MetadataVersion>1</d:MetadataVersion></d:ProbeMatch></d:ProbeMatches></s:Body></s:Envelope>`,
				xmlEscape(probe.MessageID), strings.ReplaceAll(d.Name, " ", "%20"), xmlEscape(d.URL))
			conn.WriteToUDP([]byte(answer), from)
		}
	}()
}
