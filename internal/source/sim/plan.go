package sim

import (
	"container/heap"
	"math"
)

// The planner's grid: coarser than the map (A* over 60,000 cells takes milliseconds), and
// its free cells are those a robot's centre may pass: clear of every static box by the
// robot's radius and a margin. Cells near a box cost more, so a path keeps to the middle of
// an aisle where it can.
const (
	planResolution = 0.1  // metres per cell
	planMargin     = 0.08 // beyond robotRadius, so that a plan never grazes a shelf
	planComfort    = 0.8  // clearance below which a cell costs extra
	planNearCost   = 6.0  // the extra cost per metre at no clearance at all
	// shortcutClearance is the clearance a straightened stretch of path keeps everywhere:
	// a straight line between two points of the plan must not cut a corner tighter.
	shortcutClearance = robotRadius + 0.2
)

// point is a position on the floor, in the map frame.
type point struct{ x, y float64 }

// planGrid is the static world rasterised for planning: each cell's clearance to the
// nearest box. Built once per Sim, read without a lock (the static world never changes).
type planGrid struct {
	w          *world
	cols, rows int
	clear      []float32
}

func newPlanGrid(w *world) *planGrid {
	g := &planGrid{w: w, cols: int(math.Ceil(w.width / planResolution)), rows: int(math.Ceil(w.depth / planResolution))}
	g.clear = make([]float32, g.cols*g.rows)
	for j := range g.rows {
		for i := range g.cols {
			x, y := g.centre(i, j)
			g.clear[j*g.cols+i] = float32(w.clearance(x, y))
		}
	}
	return g
}

func (g *planGrid) centre(i, j int) (x, y float64) {
	return (float64(i) + 0.5) * planResolution, (float64(j) + 0.5) * planResolution
}

// cell is the cell of (x, y); ok is false outside the grid.
func (g *planGrid) cell(x, y float64) (i, j int, ok bool) {
	i, j = int(math.Floor(x/planResolution)), int(math.Floor(y/planResolution))
	return i, j, i >= 0 && j >= 0 && i < g.cols && j < g.rows
}

func (g *planGrid) free(i, j int) bool {
	return i >= 0 && j >= 0 && i < g.cols && j < g.rows && float64(g.clear[j*g.cols+i]) >= robotRadius+planMargin
}

// nearestFree is the free cell closest to (i, j) within a metre (a robot parked against a
// shelf starts its plan from the aisle beside it).
func (g *planGrid) nearestFree(i, j int) (int, int, bool) {
	if g.free(i, j) {
		return i, j, true
	}
	best, bi, bj := math.Inf(1), 0, 0
	reach := int(1 / planResolution)
	for dj := -reach; dj <= reach; dj++ {
		for di := -reach; di <= reach; di++ {
			if d := math.Hypot(float64(di), float64(dj)); d < best && g.free(i+di, j+dj) {
				best, bi, bj = d, i+di, j+dj
			}
		}
	}
	return bi, bj, !math.IsInf(best, 1)
}

// plan is a path from (from) to (to) around the static boxes, straightened where a straight
// line keeps shortcutClearance: its first point is from, its last to. ok is false when to is
// not a place a robot fits or no way leads there. Moving obstacles and other robots are not
// planned around: the follower waits for them (they move on).
func (g *planGrid) plan(from, to point) ([]point, bool) {
	gi, gj, ok := g.cell(to.x, to.y)
	if !ok || g.w.clearance(to.x, to.y) < robotRadius+planMargin/2 {
		return nil, false
	}
	gi, gj, ok = g.nearestFree(gi, gj)
	if !ok {
		return nil, false
	}
	si, sj, ok := g.cell(from.x, from.y)
	if !ok {
		return nil, false
	}
	si, sj, ok = g.nearestFree(si, sj)
	if !ok {
		return nil, false
	}
	cells, ok := g.astar(si, sj, gi, gj)
	if !ok {
		return nil, false
	}
	path := make([]point, 0, len(cells)+2)
	path = append(path, from)
	for _, c := range cells {
		x, y := g.centre(c%g.cols, c/g.cols)
		path = append(path, point{x, y})
	}
	path = append(path, to)
	return g.straighten(path), true
}

// The eight moves of the grid and their lengths in cells.
var moves = [8]struct {
	di, dj int
	cost   float64
}{{1, 0, 1}, {-1, 0, 1}, {0, 1, 1}, {0, -1, 1}, {1, 1, math.Sqrt2}, {1, -1, math.Sqrt2}, {-1, 1, math.Sqrt2}, {-1, -1, math.Sqrt2}}

// astar is the cheapest chain of free cells from (si, sj) to (gi, gj), as cell indexes.
func (g *planGrid) astar(si, sj, gi, gj int) ([]int, bool) {
	n := g.cols * g.rows
	cost := make([]float64, n)
	from := make([]int32, n)
	for i := range cost {
		cost[i] = math.Inf(1)
		from[i] = -1
	}
	start, goal := sj*g.cols+si, gj*g.cols+gi
	h := func(c int) float64 {
		dx, dy := math.Abs(float64(c%g.cols-gi)), math.Abs(float64(c/g.cols-gj))
		return math.Max(dx, dy) + (math.Sqrt2-1)*math.Min(dx, dy) // octile: never more than the truth
	}
	cost[start] = 0
	open := &cellHeap{{start, h(start)}}
	for open.Len() > 0 {
		cur := heap.Pop(open).(cellRank)
		c := cur.cell
		if c == goal {
			var cells []int
			for ; c != start; c = int(from[c]) {
				cells = append(cells, c)
			}
			cells = append(cells, start)
			for a, b := 0, len(cells)-1; a < b; a, b = a+1, b-1 {
				cells[a], cells[b] = cells[b], cells[a]
			}
			return cells, true
		}
		if cur.rank > cost[c]+h(c)+1e-9 {
			continue // a stale entry: c was reached cheaper since
		}
		ci, cj := c%g.cols, c/g.cols
		for _, m := range moves {
			ni, nj := ci+m.di, cj+m.dj
			if !g.free(ni, nj) {
				continue
			}
			if m.di != 0 && m.dj != 0 && (!g.free(ci+m.di, cj) || !g.free(ci, cj+m.dj)) {
				continue // no corner cutting between two blocked cells
			}
			next := nj*g.cols + ni
			near := math.Max(0, planComfort-float64(g.clear[next])) * planNearCost
			c2 := cost[c] + m.cost*(1+near)
			if c2 < cost[next] {
				cost[next], from[next] = c2, int32(c)
				heap.Push(open, cellRank{next, c2 + h(next)})
			}
		}
	}
	return nil, false
}

// straighten drops the points of path a straight line can skip while keeping
// shortcutClearance (or the clearance the skipped stretch had, where it was tighter): from
// each kept point, the line reaches as far along the path as it stays clear.
func (g *planGrid) straighten(path []point) []point {
	if len(path) < 3 {
		return path
	}
	out := []point{path[0]}
	for i := 0; i < len(path)-1; {
		tight := math.Min(shortcutClearance, g.w.clearance(path[i].x, path[i].y))
		j := i + 1
		for ; j+1 < len(path); j++ {
			tight = math.Min(tight, g.w.clearance(path[j].x, path[j].y))
			next := math.Min(tight, g.w.clearance(path[j+1].x, path[j+1].y))
			if !g.clearLine(path[i], path[j+1], next) {
				break
			}
		}
		out = append(out, path[j])
		i = j
	}
	return out
}

// clearLine reports whether every point of the segment a-b keeps clearance c.
func (g *planGrid) clearLine(a, b point, c float64) bool {
	d := math.Hypot(b.x-a.x, b.y-a.y)
	steps := int(math.Ceil(d / (planResolution / 2)))
	for k := 0; k <= steps; k++ {
		t := float64(k) / float64(max(steps, 1))
		if g.w.clearance(a.x+(b.x-a.x)*t, a.y+(b.y-a.y)*t) < c-1e-9 {
			return false
		}
	}
	return true
}

// pathLength is the length of the polyline path.
func pathLength(path []point) float64 {
	l := 0.0
	for k := 1; k < len(path); k++ {
		l += math.Hypot(path[k].x-path[k-1].x, path[k].y-path[k-1].y)
	}
	return l
}

type cellRank struct {
	cell int
	rank float64
}

type cellHeap []cellRank

func (h cellHeap) Len() int           { return len(h) }
func (h cellHeap) Less(a, b int) bool { return h[a].rank < h[b].rank }
func (h cellHeap) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *cellHeap) Push(x any)        { *h = append(*h, x.(cellRank)) }
func (h *cellHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
