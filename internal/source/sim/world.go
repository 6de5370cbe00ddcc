package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// kind is what an object in the world is; the camera colours by it.
type kind uint8

const (
	kindWall kind = iota
	kindShelf
	kindDock
	kindObstacle
	kindRobot
)

// Sizes of things in the warehouse, in metres. Walls reach the ceiling, so the depth camera
// and the renderer see a closed hall.
const (
	hallWidth      = 30.0 // x extent
	hallDepth      = 20.0 // y extent
	wallThickness  = 0.2
	ceilingHeight  = 4.0
	shelfHeight    = 2.2
	shelfDepth     = 1.0
	dockHeight     = 0.5
	robotRadius    = 0.3
	robotHeight    = 0.5
	obstacleRadius = 0.3
	obstacleHeight = 1.7
)

// box is an axis-aligned block standing on the floor: a wall, a shelf, the dock.
type box struct {
	minX, minY, maxX, maxY float64
	height                 float64
	kind                   kind
}

func (b box) contains(x, y float64) bool {
	return x >= b.minX && x <= b.maxX && y >= b.minY && y <= b.maxY
}

// distance from (x, y) to the nearest point of b; 0 inside.
func (b box) distance(x, y float64) float64 {
	dx := math.Max(math.Max(b.minX-x, 0), x-b.maxX)
	dy := math.Max(math.Max(b.minY-y, 0), y-b.maxY)
	return math.Hypot(dx, dy)
}

// disc is a round object standing on the floor: a robot or a moving obstacle.
type disc struct {
	x, y, r float64
	height  float64
	kind    kind
}

// obstacle is a moving obstacle (a person pushing a cart) walking to and fro along a segment.
// It never walks into a robot: it waits, and turns back when kept waiting.
type obstacle struct {
	ax, ay, bx, by float64 // the segment it patrols
	speed          float64 // m/s
	s              float64 // distance from (ax, ay) along the segment
	dir            float64 // +1 towards b, -1 towards a
	waited         float64 // seconds spent waiting for a robot to clear the way
}

// obstacleTurnAfter is how long an obstacle waits for a robot before it turns back.
const obstacleTurnAfter = 2.0

func (o *obstacle) length() float64 { return math.Hypot(o.bx-o.ax, o.by-o.ay) }

func (o *obstacle) at(s float64) (x, y float64) {
	l := o.length()
	if l == 0 {
		return o.ax, o.ay
	}
	return o.ax + (o.bx-o.ax)*s/l, o.ay + (o.by-o.ay)*s/l
}

func (o *obstacle) pos() (x, y float64) { return o.at(o.s) }

// world is the warehouse: static geometry, fixed after build and read without a lock, and the
// moving obstacles, which the Sim's mutex guards.
type world struct {
	width, depth float64
	boxes        []box // walls, shelves, pillars and the dock
	dock         box
	chargeZone   box // a robot standing here, not moving, charges
	obstacles    []*obstacle
}

// newWarehouse builds the warehouse for a seed: outer walls, four shelf rows whose cross aisles
// fall where the seed says, two pillars, a charging dock on the west wall and three people
// walking along aisles.
func newWarehouse(seed int64) *world {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5717_3a7e_b0a5))
	w := &world{width: hallWidth, depth: hallDepth}
	w.addWalls()
	for k := range 4 {
		y0 := 3.5 + 3.5*float64(k)
		for x := 5.0; x < 25; {
			end := math.Min(x+3+rng.Float64()*4, 25)
			if 25-end < 4 { // no cross aisle or shelf stub narrower than two metres at the end
				end = 25
			}
			w.boxes = append(w.boxes, box{x, y0, end, y0 + shelfDepth, shelfHeight, kindShelf})
			x = end + 2 // a cross aisle two metres wide
		}
	}
	for _, p := range [][2]float64{{2.5, 10}, {27.5, 10}} {
		w.boxes = append(w.boxes, box{p[0] - 0.2, p[1] - 0.2, p[0] + 0.2, p[1] + 0.2, ceilingHeight, kindWall})
	}
	w.addDock(1.7)

	// Aisle centres: south of the first row, between rows, north of the last row.
	aisles := []float64{1.85, 5.75, 9.25, 12.75, 17.4}
	perm := rng.Perm(len(aisles))
	for _, i := range perm[:3] {
		o := &obstacle{
			ax: 5 + rng.Float64()*5, ay: aisles[i],
			bx: 20 + rng.Float64()*5, by: aisles[i],
			speed: 0.3 + rng.Float64()*0.4,
			dir:   1,
		}
		o.s = rng.Float64() * o.length()
		if rng.IntN(2) == 0 {
			o.dir = -1
		}
		w.obstacles = append(w.obstacles, o)
	}
	return w
}

// newEmptyHall is a hall with only its outer walls, for tests that need open floor.
func newEmptyHall(width, depth float64) *world {
	w := &world{width: width, depth: depth}
	w.addWalls()
	return w
}

func (w *world) addWalls() {
	t := wallThickness
	w.boxes = append(w.boxes,
		box{0, 0, w.width, t, ceilingHeight, kindWall},
		box{0, w.depth - t, w.width, w.depth, ceilingHeight, kindWall},
		box{0, 0, t, w.depth, ceilingHeight, kindWall},
		box{w.width - t, 0, w.width, w.depth, ceilingHeight, kindWall},
	)
}

// addDock puts the charging dock against the west wall, centred at y.
func (w *world) addDock(y float64) {
	w.dock = box{wallThickness, y - 0.3, wallThickness + 0.3, y + 0.3, dockHeight, kindDock}
	w.boxes = append(w.boxes, w.dock)
	// A robot touching the dock's face has its centre robotRadius in front of it.
	front := w.dock.maxX + robotRadius
	w.chargeZone = box{front - 0.05, y - 0.25, front + 0.4, y + 0.25, 0, kindDock}
}

// freeOfBoxes reports whether a disc of radius r at (x, y) touches no static box.
func (w *world) freeOfBoxes(x, y, r float64) bool {
	for i := range w.boxes {
		if w.boxes[i].distance(x, y) < r {
			return false
		}
	}
	return true
}

// clearance is the distance from (x, y) to the nearest static box.
func (w *world) clearance(x, y float64) float64 {
	d := math.Inf(1)
	for i := range w.boxes {
		d = math.Min(d, w.boxes[i].distance(x, y))
	}
	return d
}

// moveObstacles advances every obstacle by dt seconds. An obstacle whose next position would
// touch a robot waits instead, and turns back after waiting obstacleTurnAfter.
func (w *world) moveObstacles(dt float64, robots []disc) {
	for _, o := range w.obstacles {
		l := o.length()
		s := o.s + o.dir*o.speed*dt
		dir := o.dir
		if s > l {
			s, dir = 2*l-s, -1
		} else if s < 0 {
			s, dir = -s, 1
		}
		x, y := o.at(s)
		blocked := false
		for _, r := range robots {
			if math.Hypot(x-r.x, y-r.y) < obstacleRadius+r.r {
				blocked = true
				break
			}
		}
		if blocked {
			o.waited += dt
			if o.waited >= obstacleTurnAfter {
				o.dir, o.waited = -o.dir, 0
			}
			continue
		}
		o.s, o.dir, o.waited = s, dir, 0
	}
}

// obstacleDiscs appends the obstacles as discs.
func (w *world) obstacleDiscs(dst []disc) []disc {
	for _, o := range w.obstacles {
		x, y := o.pos()
		dst = append(dst, disc{x, y, obstacleRadius, obstacleHeight, kindObstacle})
	}
	return dst
}

// segmentDistance is the distance from (x, y) to the segment from a to b.
func segmentDistance(x, y, ax, ay, bx, by float64) float64 {
	dx, dy := bx-ax, by-ay
	l2 := dx*dx + dy*dy
	t := 0.0
	if l2 > 0 {
		t = math.Max(0, math.Min(1, ((x-ax)*dx+(y-ay)*dy)/l2))
	}
	return math.Hypot(x-(ax+t*dx), y-(ay+t*dy))
}

// minFreeAhead is the open floor every robot has in front of it at the start: a first
// forward command moves it (a robot that started facing a wall 0.9 m away looked broken to
// whoever tried the demo first).
const minFreeAhead = 3.0

// freeRunCap bounds the free run startPoses compares: past it, an aisle is long enough, and
// the seed's order of headings decides.
const freeRunCap = 8.0

// startPoses picks n start poses with room around them, away from the obstacles' paths and
// from each other, each facing along an aisle with at least minFreeAhead of open floor in
// front of it (no box, no other robot), deterministically for the seed.
func (w *world) startPoses(n int, seed int64) ([]pose, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x57a7_7505))
	var poses []pose
	for tries := 0; len(poses) < n; tries++ {
		if tries > 100000 {
			return nil, fmt.Errorf("no room for %d robots in the warehouse (placed %d)", n, len(poses))
		}
		x := 0.8 + rng.Float64()*(w.width-1.6)
		y := 0.8 + rng.Float64()*(w.depth-1.6)
		first := rng.IntN(4) // which of the four aisle directions wins a tie
		if w.clearance(x, y) < robotRadius+0.3 {
			continue
		}
		ok := true
		for _, o := range w.obstacles {
			if segmentDistance(x, y, o.ax, o.ay, o.bx, o.by) < robotRadius+obstacleRadius+0.3 {
				ok = false
				break
			}
		}
		for _, p := range poses {
			if math.Hypot(x-p.x, y-p.y) < 2*robotRadius+0.6 {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		// Face the longest open run of the four directions the aisles take.
		best, bestRun := pose{}, -1.0
		for k := range 4 {
			th := aisleHeadings[(first+k)%4]
			if run := w.freeRun(pose{x, y, th}, poses, freeRunCap); run > bestRun {
				best, bestRun = pose{x, y, th}, run
			}
		}
		if bestRun < minFreeAhead {
			continue
		}
		// Nor may this robot stand in the way of one placed before it.
		for _, p := range poses {
			if w.freeRun(p, []pose{best}, minFreeAhead) < minFreeAhead {
				ok = false
				break
			}
		}
		if ok {
			poses = append(poses, best)
		}
	}
	return poses, nil
}

// aisleHeadings are the directions the aisles run: east, north, west, south.
var aisleHeadings = [4]float64{0, math.Pi / 2, math.Pi, -math.Pi / 2}

// freeRunStep is the resolution of freeRun.
const freeRunStep = 0.05

// freeRun is how far a robot at p can drive straight ahead, up to limit, before its body
// touches a static box or one of the robots at others.
func (w *world) freeRun(p pose, others []pose, limit float64) float64 {
	dx, dy := math.Cos(p.theta), math.Sin(p.theta)
	d := 0.0
	for d < limit {
		next := math.Min(d+freeRunStep, limit)
		x, y := p.x+next*dx, p.y+next*dy
		if !w.freeOfBoxes(x, y, robotRadius) {
			return d
		}
		for _, o := range others {
			if math.Hypot(x-o.x, y-o.y) < 2*robotRadius {
				return d
			}
		}
		d = next
	}
	return d
}

// pose is a position on the floor and a heading (yaw, radians, counter-clockwise from +x).
type pose struct {
	x, y, theta float64
}
