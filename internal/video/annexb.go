package video

// H.264 NAL unit types this package looks for (ITU-T H.264, table 7-1).
const (
	nalIDR = 5 // a slice of an IDR picture: decodes on its own
	nalSPS = 7
	nalPPS = 8
)

// NALTypes lists the NAL unit types of an Annex B access unit, in order.
func NALTypes(au []byte) []int {
	var types []int
	for i := 0; i+3 < len(au); i++ {
		// A start code is 00 00 01 (a four-byte one ends the same way); emulation prevention
		// keeps it out of NAL payloads.
		if au[i] == 0 && au[i+1] == 0 && au[i+2] == 1 {
			types = append(types, int(au[i+3]&0x1f))
			i += 3
		}
	}
	return types
}

// IsKeyframe reports whether an Annex B access unit is an IDR picture with its SPS and PPS,
// from which a decoder can start.
func IsKeyframe(au []byte) bool {
	var idr, sps, pps bool
	for _, t := range NALTypes(au) {
		switch t {
		case nalIDR:
			idr = true
		case nalSPS:
			sps = true
		case nalPPS:
			pps = true
		}
	}
	return idr && sps && pps
}
