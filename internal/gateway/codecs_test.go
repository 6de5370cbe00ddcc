package gateway

import (
	"slices"
	"testing"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/video"
)

// TestCodecsAreTheHostingGatewaysChoice: a cloud without ffmpeg offers an agent's camera in
// H.264 when the agent said it can (the cloud relays the agent's pictures), and its own cameras
// in JPEG alone; a codec the agent offers passes the W3 check, one it does not is refused.
func TestCodecsAreTheHostingGatewaysChoice(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no ffmpeg here
	ss := &StreamService{video: video.New()}
	own := fleetgate.Stream{Name: "image", Type: video.ImageType}
	agents := fleetgate.Stream{Name: "image", Type: video.ImageType, Codecs: fleetgate.CodecsJPEG | fleetgate.CodecsH264}
	agentWithoutFFmpeg := fleetgate.Stream{Name: "image", Type: video.ImageType, Codecs: fleetgate.CodecsJPEG}

	if got := ss.Codecs(own); !slices.Equal(got, []string{"jpeg"}) {
		t.Errorf("its own camera: %v, want jpeg alone", got)
	}
	if got := ss.Codecs(agents); !slices.Equal(got, []string{"jpeg", fleetgate.CodecH264}) {
		t.Errorf("an agent's camera: %v, want the agent's jpeg and h264", got)
	}
	if err := ss.checkCodec(agents, fleetgate.CodecH264); err != nil {
		t.Errorf("h264 of an agent that offers it: %v", err)
	}
	for _, s := range []fleetgate.Stream{own, agentWithoutFFmpeg} {
		if err := ss.checkCodec(s, fleetgate.CodecH264); !fleetgate.Is(err, fleetgate.EInvalid) {
			t.Errorf("h264 of %v: %v, want refused", s.Codecs, err)
		}
	}
}
