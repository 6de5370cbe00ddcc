package api

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/gateway"
)

// The panel's sockets carry their one-use token in the Sec-WebSocket-Protocol header rather
// than in the URL: a browser writes the URL of a refused upgrade to its console, and proxies
// log URLs. The client offers two protocols, socketProtocol and tokenProtocolPrefix+token;
// the server answers with socketProtocol, so the token is never echoed. Scripts keep the
// contract's access_token query parameter or the authorization header.
const (
	socketProtocol      = "fleetgate"
	tokenProtocolPrefix = "fleetgate.token."
	// cameraProtocolPrefix carries the credentials of a camera opened by address (W3
	// source 4 or 5 with url), for the same reason: the panel's camera form never puts
	// them in the URL. What follows the prefix is the base64url (no padding) of the JSON
	// object {"username": ..., "password": ...}.
	cameraProtocolPrefix = "fleetgate.camera."
)

// protocolToken is the token offered as a WebSocket subprotocol, or "".
func protocolToken(req *http.Request) string {
	token, _ := offeredProtocol(req, tokenProtocolPrefix)
	return token
}

// offeredProtocol is what follows prefix in the first subprotocol offered with it.
func offeredProtocol(req *http.Request, prefix string) (string, bool) {
	for _, header := range req.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(header, ",") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), prefix); ok {
				return v, true
			}
		}
	}
	return "", false
}

// protocolCameraCredentials reads the camera credentials offered as a subprotocol
// (cameraProtocolPrefix); ok false when none are.
func protocolCameraCredentials(req *http.Request) (username, password string, ok bool, err error) {
	v, ok := offeredProtocol(req, cameraProtocolPrefix)
	if !ok {
		return "", "", false, nil
	}
	invalid := fleetgate.Errorf(fleetgate.EInvalid, "the %s subprotocol must carry base64url JSON {\"username\", \"password\"}", cameraProtocolPrefix+"…")
	if len(v) > 4*maxCameraParam {
		return "", "", false, invalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return "", "", false, invalid
	}
	var creds struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(&creds) != nil {
		return "", "", false, invalid
	}
	return creds.Username, creds.Password, true, nil
}

// acceptOptions are the options of every API socket: no compression (DESIGN section 9), the
// panel's protocol selected when offered, and no origin check of the library's: ours
// (checkSocketOrigin) ran before, and answers a problem document rather than text.
func acceptOptions() *websocket.AcceptOptions {
	return &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled, Subprotocols: []string{socketProtocol},
		InsecureSkipVerify: true}
}

// checkSocketOrigin decides whether a page of another origin may open this socket. The
// contract's browser clients authenticate with an explicit token (access_token, a bearer
// header), which another site's page cannot hold unless it was given one: a dashboard on
// another origin may connect with it. The panel's one-use socket tokens stand for a session
// cookie, and are accepted only from the panel's own pages (Origin absent, or this host).
func checkSocketOrigin(req *http.Request, bearer string) error {
	if !gateway.IsSocketToken(bearer) {
		return nil
	}
	origin := req.Header.Get("Origin")
	if origin == "" {
		return nil // not a browser page
	}
	u, err := url.Parse(origin)
	if err == nil && strings.EqualFold(u.Host, req.Host) {
		return nil
	}
	return fleetgate.Errorf(fleetgate.EForbidden, "a panel socket token opens sockets from the panel's own pages only, not from %s", origin)
}
