package sim

import (
	"math"
	"slices"
)

// scene is what a sensor sees at one instant: the static boxes (shared, never modified) and
// a copy of the moving discs (obstacles and the other robots). Sensors take a scene under the
// Sim's lock and raycast it outside, so rendering never holds the world still.
type scene struct {
	boxes []box
	discs []disc
}

// hit is where a horizontal ray meets an object.
type hit struct {
	dist   float64 // along the ray
	height float64 // of the object
	kind   kind
	face   uint8   // faceX, faceY or faceRound: the camera shades faces differently
	u      float64 // position along the surface, for texture
}

const (
	faceX uint8 = iota // a face perpendicular to x
	faceY
	faceRound
)

// rayBox intersects the ray from (ox, oy) along the unit vector (dx, dy) with b.
func rayBox(ox, oy, dx, dy float64, b *box) (hit, bool) {
	t0, t1 := math.Inf(-1), math.Inf(1)
	face := faceX
	if dx != 0 {
		a, c := (b.minX-ox)/dx, (b.maxX-ox)/dx
		if a > c {
			a, c = c, a
		}
		t0, t1 = a, c
	} else if ox < b.minX || ox > b.maxX {
		return hit{}, false
	}
	if dy != 0 {
		a, c := (b.minY-oy)/dy, (b.maxY-oy)/dy
		if a > c {
			a, c = c, a
		}
		if a > t0 {
			t0, face = a, faceY
		}
		t1 = math.Min(t1, c)
	} else if oy < b.minY || oy > b.maxY {
		return hit{}, false
	}
	if t0 > t1 || t1 < 0 {
		return hit{}, false
	}
	t0 = math.Max(t0, 0)
	u := oy + t0*dy
	if face == faceY {
		u = ox + t0*dx
	}
	return hit{dist: t0, height: b.height, kind: b.kind, face: face, u: u}, true
}

// rayDisc intersects the ray from (ox, oy) along the unit vector (dx, dy) with c.
func rayDisc(ox, oy, dx, dy float64, c *disc) (hit, bool) {
	px, py := ox-c.x, oy-c.y
	b := px*dx + py*dy
	q := b*b - (px*px + py*py - c.r*c.r)
	if q < 0 {
		return hit{}, false
	}
	t := -b - math.Sqrt(q)
	if t < 0 {
		return hit{}, false
	}
	// The angle around the disc serves as the texture coordinate.
	u := math.Atan2(py+t*dy, px+t*dx) * c.r
	return hit{dist: t, height: c.height, kind: c.kind, face: faceRound, u: u}, true
}

// nearest is the closest hit within maxDist of objects at least minHeight tall.
func (sc *scene) nearest(ox, oy, dx, dy, maxDist, minHeight float64) (hit, bool) {
	best := hit{dist: maxDist}
	found := false
	for i := range sc.boxes {
		if sc.boxes[i].height < minHeight {
			continue
		}
		if h, ok := rayBox(ox, oy, dx, dy, &sc.boxes[i]); ok && h.dist < best.dist {
			best, found = h, true
		}
	}
	for i := range sc.discs {
		if sc.discs[i].height < minHeight {
			continue
		}
		if h, ok := rayDisc(ox, oy, dx, dy, &sc.discs[i]); ok && h.dist < best.dist {
			best, found = h, true
		}
	}
	return best, found
}

// all appends to dst every hit within maxDist, nearest first, ending with the first object
// that reaches the ceiling: nothing behind it can be seen. A 2.5D view needs more than the
// nearest hit because a low object hides only the lower part of what stands behind it.
func (sc *scene) all(dst []hit, ox, oy, dx, dy, maxDist float64) []hit {
	dst = dst[:0]
	wall := maxDist
	for i := range sc.boxes {
		if h, ok := rayBox(ox, oy, dx, dy, &sc.boxes[i]); ok && h.dist < maxDist {
			dst = append(dst, h)
			if h.height >= ceilingHeight {
				wall = math.Min(wall, h.dist)
			}
		}
	}
	for i := range sc.discs {
		if h, ok := rayDisc(ox, oy, dx, dy, &sc.discs[i]); ok && h.dist < maxDist {
			dst = append(dst, h)
		}
	}
	slices.SortFunc(dst, func(a, b hit) int {
		switch {
		case a.dist < b.dist:
			return -1
		case a.dist > b.dist:
			return 1
		}
		return 0
	})
	for i, h := range dst {
		if h.dist >= wall {
			return dst[:i+1]
		}
	}
	return dst
}
