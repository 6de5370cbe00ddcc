package rosmsg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

// Every catalog type has a ROS 2 codec that carries every catalog field.
func TestCDRCodecsCoverCatalogFields(t *testing.T) {
	for _, typ := range Types() {
		c, err := CDRCodecFor(typ)
		if err != nil {
			t.Errorf("%s: %v", typ, err)
			continue
		}
		checkCovered(t, c.plan)
	}
}

// cdrBuf writes CDR by hand, the way the specification lays it out, to check the codec's
// alignment against: primitives aligned to their size counted from after the 4-byte header.
type cdrBuf struct {
	b     []byte
	order binary.AppendByteOrder
}

func newCDR(order binary.AppendByteOrder) *cdrBuf {
	id := byte(cdrLE)
	if order == binary.BigEndian {
		id = cdrBE
	}
	return &cdrBuf{b: []byte{0, id, 0, 0}, order: order}
}

func (c *cdrBuf) align(n int) {
	for (len(c.b)-4)%n != 0 {
		c.b = append(c.b, 0)
	}
}
func (c *cdrBuf) u32(v uint32)  { c.align(4); c.b = c.order.AppendUint32(c.b, v) }
func (c *cdrBuf) f32(v float32) { c.u32(math.Float32bits(v)) }
func (c *cdrBuf) f64(v float64) {
	c.align(8)
	c.b = c.order.AppendUint64(c.b, math.Float64bits(v))
}
func (c *cdrBuf) str(s string) { c.u32(uint32(len(s) + 1)); c.b = append(append(c.b, s...), 0) }
func (c *cdrBuf) header(sec int32, nsec uint32, frame string) {
	c.u32(uint32(sec))
	c.u32(nsec)
	c.str(frame)
}

func TestCDRLayout(t *testing.T) {
	// Odometry: strings of odd lengths push the float64s onto padding.
	w := newCDR(binary.LittleEndian)
	w.header(-5, 7, "odom")
	w.str("base")
	for _, v := range []float64{1, 2, 3, 0, 0, 0.5, 0.75} {
		w.f64(v)
	}
	for i := range 36 {
		w.f64(float64(i))
	}
	for _, v := range []float64{0.25, 0, 0, 0, 0, -1} {
		w.f64(v)
	}
	for range 36 {
		w.f64(0)
	}
	cov := make([]float64, 36)
	for i := range cov {
		cov[i] = float64(i)
	}
	odom := &catalogpb.Odometry{
		Header:       &catalogpb.Header{Stamp: &catalogpb.Time{Sec: -5, Nanosec: 7}, FrameId: "odom"},
		ChildFrameId: "base",
		Pose: &catalogpb.PoseWithCovariance{Pose: &catalogpb.Pose{
			Position:    &catalogpb.Point{X: 1, Y: 2, Z: 3},
			Orientation: &catalogpb.Quaternion{Z: 0.5, W: 0.75},
		}, Covariance: cov},
		Twist: &catalogpb.TwistWithCovariance{Twist: &catalogpb.Twist{
			Linear: &catalogpb.Vector3{X: 0.25}, Angular: &catalogpb.Vector3{Z: -1},
		}},
	}
	c, err := CDRCodecFor("nav_msgs/Odometry")
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Encode(odom)
	if err != nil {
		t.Fatal(err)
	}
	// An unset fixed array encodes as zeros, which decode as zeros: compare with them.
	want := proto.Clone(odom).(*catalogpb.Odometry)
	want.Twist.Covariance = make([]float64, 36)
	if !bytes.Equal(got, w.b) {
		t.Fatalf("encoded\n%x\nwant\n%x", got, w.b)
	}
	m, err := c.Decode(w.b)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(m, want) {
		t.Errorf("decoded %v\nwant %v", m, want)
	}

	// A big-endian writer's LaserScan decodes the same, padding after the frame included.
	be := newCDR(binary.BigEndian)
	be.header(1, 2, "ab")
	for _, v := range []float32{-1, 1, 0.5, 0, 0.1, 0.2, 10} {
		be.f32(v)
	}
	be.u32(2)
	be.f32(1.5)
	be.f32(2.5)
	be.u32(0)
	scan, err := CDRCodecFor("sensor_msgs/LaserScan")
	if err != nil {
		t.Fatal(err)
	}
	sm, err := scan.Decode(be.b)
	if err != nil {
		t.Fatal(err)
	}
	ls := sm.(*catalogpb.LaserScan)
	if ls.Header.FrameId != "ab" || ls.AngleMin != -1 || ls.RangeMax != 10 || len(ls.Ranges) != 2 || ls.Ranges[1] != 2.5 {
		t.Errorf("big-endian scan decoded as %v", ls)
	}
}

func TestCDRDecodeRefuses(t *testing.T) {
	c, _ := CDRCodecFor("std_msgs/String")
	good, _ := c.Encode(&catalogpb.String{Data: "hi"})
	noNUL := append([]byte{}, good...)
	noNUL[len(noNUL)-1] = 'x'
	badEnc := append([]byte{}, good...)
	badEnc[1] = 3 // parameter-list CDR: not what ROS 2 sends
	tests := map[string][]byte{
		"empty":          {},
		"header only":    good[:4],
		"short":          good[:len(good)-1],
		"no NUL":         noNUL,
		"encapsulation":  badEnc,
		"trailing bytes": append(append([]byte{}, good...), 0, 0, 0, 0),
		"huge length":    {0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f},
	}
	for name, data := range tests {
		if _, err := c.Decode(data); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Up to 3 bytes of padding at the end are a writer's right.
	if _, err := c.Decode(append(append([]byte{}, good...), 0, 0, 0)); err != nil {
		t.Errorf("padded: %v", err)
	}
}

func FuzzDecodeCDR(f *testing.F) {
	for _, typ := range Types() {
		c, _ := CDRCodecFor(typ)
		data, _ := c.Encode(mustNew(typ))
		f.Add(typ, data)
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte) {
		c, err := CDRCodecFor(typ)
		if err != nil {
			return
		}
		payload, err := c.ToCatalog(data)
		if err != nil {
			return
		}
		back, err := c.FromCatalog(payload)
		if err != nil {
			t.Fatalf("%s: %x decoded but does not encode: %v", typ, data, err)
		}
		again, err := c.ToCatalog(back)
		if err != nil || !bytes.Equal(again, payload) {
			t.Fatalf("%s: %x -> %x -> %x, %v", typ, data, back, again, err)
		}
	})
}

// FuzzParse feeds the .msg parser arbitrary definitions: it errs or gives a spec, never
// panics, and a spec it gives has sane array lengths.
func FuzzParse(f *testing.F) {
	for _, typ := range Types() {
		f.Add(ros2Definitions[typ])
		f.Add(definitions[typ])
	}
	f.Add("int32[<=5] a\nstring<=3 s \"x\"\nuint8 K=3\nfoo/msg/Bar b")
	f.Fuzz(func(t *testing.T, text string) {
		resolve := func(typ string) (string, bool) { s, ok := ros2Definitions[typ]; return s, ok }
		s, err := Parse("fuzz_msgs/T", text, resolve)
		if err != nil {
			return
		}
		for _, fl := range s.Fields {
			if fl.Len > 1<<20 || fl.Len < -1 || fl.Bound < 0 || fl.Name == "" {
				t.Fatalf("field %+v", fl)
			}
		}
		_ = s.minSize()
	})
}

// Foxglove's CompressedVideo, a ROS 2-only catalog type, decodes from CDR as a camera's
// H.264 access unit: the bytes as they came.
func TestCDRCompressedVideo(t *testing.T) {
	if CatalogType("foxglove_msgs/CompressedVideo") != "" {
		t.Fatal("ROS 1 robots get a catalog type for CompressedVideo, which they have no codec of")
	}
	c, err := CDRCodecFor("foxglove_msgs/CompressedVideo")
	if err != nil {
		t.Fatal(err)
	}
	checkCovered(t, c.plan)
	au := []byte{0, 0, 0, 1, 0x67, 1, 2, 0, 0, 0, 1, 0x65, 9}
	b := newCDR(binary.LittleEndian)
	b.u32(1700000000)
	b.u32(5)
	b.str("cam")
	b.u32(uint32(len(au)))
	b.b = append(b.b, au...)
	b.str("h264")
	out, err := c.ToCatalog(b.b)
	if err != nil {
		t.Fatal(err)
	}
	var v catalogpb.CompressedVideo
	if err := proto.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.GetTimestamp().GetSec() != 1700000000 || v.GetTimestamp().GetNanosec() != 5 || v.FrameId != "cam" || !bytes.Equal(v.Data, au) || v.Format != "h264" {
		t.Fatalf("decoded %v", &v)
	}
	if _, err := SpecCodecROS2("action_msgs/GoalInfo"); err != nil {
		t.Fatal(err)
	}
}
