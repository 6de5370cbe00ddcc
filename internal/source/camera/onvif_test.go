package camera

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/source/camera/cameratest"
)

func TestONVIFStreamURI(t *testing.T) {
	const streamURI = "rtsp://192.0.2.7:554/Streaming/Channels/101"
	dev := cameratest.StartONVIF(t, streamURI, "admin", "cam-secret")
	tests := []struct {
		name, user, password string
		want                 string
		wantErr              error
		wantRequests         []string
	}{
		{"right credentials", "admin", "cam-secret", streamURI, nil, []string{"GetCapabilities", "GetProfiles", "GetStreamUri"}},
		{"wrong password", "admin", "guess", "", errNotAuthorized, []string{"refused GetCapabilities"}},
		{"no credentials", "", "", "", errNotAuthorized, []string{"refused GetCapabilities"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(dev.Requests())
			o := &ONVIF{URL: dev.URL, Username: tt.user, Password: tt.password}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			got, err := o.StreamURI(ctx)
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Fatalf("StreamURI = %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
			if reqs := dev.Requests()[before:]; !slices.Equal(reqs, tt.wantRequests) {
				t.Fatalf("requests %v, want %v", reqs, tt.wantRequests)
			}
			if err != nil && strings.Contains(err.Error(), tt.password) && tt.password != "" {
				t.Fatalf("the error shows the password: %v", err)
			}
		})
	}
	if dev.SawPlaintext() {
		t.Fatal("a request sent the password instead of its digest")
	}
}

// TestONVIFCameraStreams asks the test device for its stream, which is the real RTSP
// server's, and reads images from it with the same credentials.
func TestONVIFCameraStreams(t *testing.T) {
	const user, password = "admin", "cam-secret"
	srv := cameratest.StartRTSP(t, cameratest.RTSPOptions{Codec: "h264", User: user, Password: password})
	dev := cameratest.StartONVIF(t, srv.URL(), user, password)
	c := realCamera(t, strings.Replace(dev.URL, "http://", "http://"+user+":"+password+"@", 1), nil)
	if s := c.Stream(); s.Source != fleetgate.SourceONVIF || s.SourceURL != dev.URL {
		t.Fatalf("descriptor %+v", s)
	}
	sub, err := c.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	imgs, _ := images(t, sub, 3)
	if w, h := decodeJPEG(t, imgs[2].Data); w != 320 || h != 240 {
		t.Fatalf("image %dx%d", w, h)
	}
	if dev.SawPlaintext() {
		t.Fatal("the password went to the device in plain text")
	}
}

func TestONVIFCameraWrongPasswordIsReported(t *testing.T) {
	dev := cameratest.StartONVIF(t, "rtsp://127.0.0.1:1/none", "admin", "cam-secret")
	c := realCamera(t, strings.Replace(dev.URL, "http://", "http://admin:not-it@", 1), nil)
	sub, err := c.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-sub.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("not reported within 5 s")
	}
	if err := sub.Err(); !fleetgate.Is(err, fleetgate.EUnavailable) || !strings.Contains(err.Error(), "refused the credentials") {
		t.Fatalf("ended with %v", err)
	}
}
