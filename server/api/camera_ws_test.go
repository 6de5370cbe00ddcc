package api

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// The camera subprotocol reads as the panel writes it (base64url of JSON, no padding), among
// the other subprotocols in any of the header's lines; anything else is a 400 in words.
func TestProtocolCameraCredentials(t *testing.T) {
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, tc := range []struct {
		name    string
		headers []string
		user    string
		pass    string
		offered bool
		invalid bool
	}{
		{"none", []string{"fleetgate, fleetgate.token.abc"}, "", "", false, false},
		{"with the token", []string{"fleetgate, fleetgate.token.abc, fleetgate.camera." + b64(`{"username":"viewer","password":"p:ä/?"}`)}, "viewer", "p:ä/?", true, false},
		{"on a second line", []string{"fleetgate", "fleetgate.camera." + b64(`{"password":"only"}`)}, "", "only", true, false},
		{"padded base64", []string{"fleetgate.camera." + base64.URLEncoding.EncodeToString([]byte(`{"username":"a"}`))}, "", "", false, true},
		{"standard base64", []string{"fleetgate.camera." + strings.NewReplacer("-", "+", "_", "/").Replace(b64(`{"username":"??>"}`))}, "", "", false, true},
		{"not JSON", []string{"fleetgate.camera." + b64("viewer:secret")}, "", "", false, true},
		{"an unknown field", []string{"fleetgate.camera." + b64(`{"user":"viewer"}`)}, "", "", false, true},
		{"over-long", []string{"fleetgate.camera." + strings.Repeat("A", 4*maxCameraParam+1)}, "", "", false, true},
	} {
		req := &http.Request{Header: http.Header{"Sec-Websocket-Protocol": tc.headers}}
		user, pass, offered, err := protocolCameraCredentials(req)
		if (err != nil) != tc.invalid || offered != tc.offered || user != tc.user || pass != tc.pass {
			t.Errorf("%s: %q %q %v %v", tc.name, user, pass, offered, err)
		}
		if err != nil && strings.Contains(err.Error(), "viewer") {
			t.Errorf("%s: the refusal repeats what was offered: %v", tc.name, err)
		}
	}
}
