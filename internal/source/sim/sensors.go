package sim

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"math"
	"sync"
	"time"

	"github.com/fleetgate/fleetgate/internal/clockstrip"
	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// Lidar: a planar 360° scanner on top of the base.
const (
	scanBeams    = 360
	scanRangeMin = 0.1
	scanRangeMax = 12.0
	lidarHeight  = 0.25 // objects lower than this pass under the beam
)

// scanPayload sweeps the scene from p. A beam without a return within range reads +Inf, as
// ROS REP 117 says.
func scanPayload(p pose, sc *scene, at time.Time) []byte {
	inc := 2 * math.Pi / scanBeams
	ranges := make([]float32, scanBeams)
	intensities := make([]float32, scanBeams)
	for i := range scanBeams {
		a := p.theta - math.Pi + float64(i)*inc
		h, ok := sc.nearest(p.x, p.y, math.Cos(a), math.Sin(a), scanRangeMax, lidarHeight)
		if !ok {
			ranges[i] = float32(math.Inf(1))
			continue
		}
		ranges[i] = float32(h.dist)
		intensities[i] = reflectivity[h.kind]
	}
	return marshal(&catalogpb.LaserScan{
		Header:         header(at, frameLaser),
		AngleMin:       float32(-math.Pi),
		AngleMax:       float32(math.Pi - inc),
		AngleIncrement: float32(inc),
		TimeIncrement:  float32(scanPeriod.Seconds() / scanBeams),
		ScanTime:       float32(scanPeriod.Seconds()),
		RangeMin:       scanRangeMin,
		RangeMax:       scanRangeMax,
		Ranges:         ranges,
		Intensities:    intensities,
	})
}

// reflectivity is the lidar intensity by kind: the dock and the robots carry reflective tape.
var reflectivity = [...]float32{kindWall: 100, kindShelf: 140, kindDock: 250, kindObstacle: 60, kindRobot: 220}

// Camera: a forward-looking colour camera on a short mast.
const (
	camWidth    = 640
	camHeight   = 480
	camFOV      = 70 * math.Pi / 180 // horizontal
	camMount    = 0.45               // lens height above the floor, m
	camRange    = 40.0
	jpegQuality = 75
)

var camFocal = camWidth / 2 / math.Tan(camFOV/2) // pixels

// camColumns holds each column's angle off the optical axis and its cosine, which turns a
// distance along the ray into depth (no fish-eye bulge).
var camColumns = sync.OnceValue(func() [][2]float64 {
	cols := make([][2]float64, camWidth)
	for c := range cols {
		off := math.Atan((camWidth/2 - float64(c) - 0.5) / camFocal)
		cols[c] = [2]float64{off, math.Cos(off)}
	}
	return cols
})

// camBackground is the empty view: a ceiling gradient above the horizon and a floor gradient
// below it, both fading into the haze of the far hall.
var camBackground = sync.OnceValue(func() []byte {
	pix := make([]byte, camWidth*camHeight*4)
	for y := range camHeight {
		var c [3]float64
		if y < camHeight/2 {
			t := float64(y) / (camHeight / 2) // 0 at the top, 1 at the horizon
			c = mix([3]float64{58, 62, 72}, [3]float64{120, 122, 128}, t)
		} else {
			t := float64(y-camHeight/2) / (camHeight / 2) // 0 at the horizon, 1 at the bottom
			c = mix([3]float64{110, 108, 102}, [3]float64{168, 164, 152}, t)
		}
		for x := range camWidth {
			i := (y*camWidth + x) * 4
			pix[i], pix[i+1], pix[i+2], pix[i+3] = uint8(c[0]), uint8(c[1]), uint8(c[2]), 255
		}
	}
	return pix
})

func mix(a, b [3]float64, t float64) [3]float64 {
	return [3]float64{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
}

// camera renders a robot's view. One per robot; its mutex serializes renders so the buffers
// are reused and concurrent readers share a frame instead of each rendering one.
type camera struct {
	mu   sync.Mutex
	img  *image.RGBA
	hits []hit
	buf  bytes.Buffer
}

// render draws the scene from p with a 2.5D raycaster (every object a vertical slice standing
// on the floor, shaded by distance and coloured by kind) and returns the JPEG. A non-zero
// strip is the capture time to burn into the picture (clockstrip).
func (c *camera) render(p pose, sc *scene, strip time.Time) ([]byte, error) {
	if c.img == nil {
		c.img = image.NewRGBA(image.Rect(0, 0, camWidth, camHeight))
	}
	pix, stride := c.img.Pix, c.img.Stride
	copy(pix, camBackground())
	horizon := float64(camHeight) / 2
	for col, cs := range camColumns() {
		a := p.theta + cs[0]
		c.hits = sc.all(c.hits, p.x, p.y, math.Cos(a), math.Sin(a), camRange)
		clip := camHeight // rows at and below clip are painted by a nearer object
		for _, h := range c.hits {
			depth := math.Max(h.dist*cs[1], 0.05)
			scale := camFocal / depth
			top := int(math.Ceil(horizon - (h.height-camMount)*scale))
			bottom := int(math.Ceil(horizon + camMount*scale))
			y0, y1 := max(top, 0), min(bottom, clip, camHeight)
			if y0 < y1 {
				shade := 1 / (1 + 0.07*h.dist)
				switch h.face {
				case faceY:
					shade *= 0.8
				case faceRound:
					shade *= 0.9
				}
				s := int(shade * 256)
				z := camMount + (horizon-float64(y0)-0.5)/scale
				dz := 1 / scale
				i := y0*stride + col*4
				for y := y0; y < y1; y++ {
					r, g, b := surface(h, z)
					pix[i], pix[i+1], pix[i+2] = uint8(r*s>>8), uint8(g*s>>8), uint8(b*s>>8)
					z -= dz
					i += stride
				}
			}
			clip = min(clip, top)
			if clip <= 0 {
				break
			}
		}
	}
	if !strip.IsZero() {
		clockstrip.Burn(c.img, strip)
	}
	c.buf.Reset()
	if err := jpeg.Encode(&c.buf, c.img, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return nil, err
	}
	return c.buf.Bytes(), nil
}

// surface is the colour of an object at height z (metres) and position h.u along it.
func surface(h hit, z float64) (r, g, b int) {
	switch h.kind {
	case kindWall:
		switch {
		case z < 0.15:
			return 80, 82, 86 // baseboard
		case z > 3.6:
			return 150, 150, 150 // roof beam
		case wrap(math.Abs(h.u), 2.5) < 0.04:
			return 140, 136, 126 // panel seam
		}
		return 200, 194, 180
	case kindShelf:
		const bay, level = 1.35, 0.55
		u := math.Abs(h.u)
		switch {
		case wrap(u, bay) < 0.08:
			return 40, 80, 170 // upright
		case wrap(z, level) < 0.07:
			return 235, 125, 30 // beam
		}
		// Goods: cartons, a few bays empty, deterministic per bay and level.
		n := uint32(int(u/bay)*31 + int(z/level)*17)
		n = n*2654435761 ^ n>>13
		switch n % 7 {
		case 0:
			return 35, 35, 40
		case 1:
			return 120, 150, 190 // wrapped pallet
		}
		return 170 + int(n%30), 128 + int(n%20), 78
	case kindDock:
		if z > dockHeight-0.08 {
			return 40, 210, 90 // charging light
		}
		if int((z+math.Abs(h.u))/0.12)%2 == 0 {
			return 30, 30, 30
		}
		return 240, 200, 40
	case kindObstacle:
		switch {
		case z > 1.5:
			return 225, 185, 155 // head
		case z > 0.85:
			return 210, 50, 45 // high-visibility vest
		}
		return 45, 50, 95
	case kindRobot:
		switch {
		case z < 0.08:
			return 25, 25, 25 // bumper
		case z > robotHeight-0.06:
			return 235, 235, 235
		}
		return 30, 160, 150
	}
	return 255, 0, 255
}

// wrap is x modulo m for m > 0, in [0, m): math.Mod is exact but several times slower, and
// this runs for every pixel.
func wrap(x, m float64) float64 { return x - m*math.Floor(x/m) }

// Depth camera: a forward-looking depth sensor producing a point cloud.
const (
	depthCols   = 160
	depthRows   = 120
	depthHFOV   = 87 * math.Pi / 180
	depthVFOV   = 58 * math.Pi / 180
	depthMount  = 0.5 // m above the floor
	depthRange  = 10.0
	pointStride = 12 // x, y, z float32
)

// depthSensor computes point clouds for one robot; its mutex serializes them.
type depthSensor struct {
	mu   sync.Mutex
	hits []hit
}

// cloud casts the depth sensor's ray grid into the scene from p and returns the points that
// hit something within range, in the robot frame (x forward, y left, z up from the floor), as
// packed little-endian float32 x, y, z.
func (d *depthSensor) cloud(p pose, sc *scene) []byte {
	data := make([]byte, 0, depthCols*depthRows*pointStride)
	for col := range depthCols {
		az := depthHFOV/2 - (float64(col)+0.5)*depthHFOV/depthCols
		ca, sa := math.Cos(az), math.Sin(az)
		a := p.theta + az
		d.hits = sc.all(d.hits, p.x, p.y, math.Cos(a), math.Sin(a), depthRange)
		for row := range depthRows {
			el := depthVFOV/2 - (float64(row)+0.5)*depthVFOV/depthRows
			tan := math.Tan(el)
			// Where the ray meets the floor or the ceiling, if nothing stands in its way.
			dist, z := math.Inf(1), 0.0
			switch {
			case tan < 0:
				dist, z = depthMount/-tan, 0
			case tan > 0:
				dist, z = (ceilingHeight-depthMount)/tan, ceilingHeight
			}
			for _, h := range d.hits {
				if h.dist >= dist {
					break
				}
				if hz := depthMount + h.dist*tan; hz >= 0 && hz <= h.height {
					dist, z = h.dist, hz
					break
				}
			}
			if math.IsInf(dist, 1) || dist/math.Cos(el) > depthRange {
				continue
			}
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(dist*ca)))
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(dist*sa)))
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(z)))
		}
	}
	return data
}

// pointFields describe x, y, z as FLOAT32 (datatype 7).
var pointFields = []*catalogpb.PointField{
	{Name: "x", Offset: 0, Datatype: 7, Count: 1},
	{Name: "y", Offset: 4, Datatype: 7, Count: 1},
	{Name: "z", Offset: 8, Datatype: 7, Count: 1},
}

func cloudPayload(data []byte, at time.Time) []byte {
	n := uint32(len(data) / pointStride)
	return marshal(&catalogpb.PointCloud2{
		Header:    header(at, frameBase),
		Height:    1,
		Width:     n,
		Fields:    pointFields,
		PointStep: pointStride,
		RowStep:   n * pointStride,
		Data:      data,
		IsDense:   true,
	})
}

func imagePayload(jpegData []byte, at time.Time) []byte {
	return marshal(&catalogpb.CompressedImage{Header: header(at, frameCamera), Format: "jpeg", Data: jpegData})
}
