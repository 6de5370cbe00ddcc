// Package hoststat reads the load of the host the gateway runs on (CPU, memory, disk, network,
// GPU) from Linux's /proc, /sys and statfs, so simulated robots can report real figures. Where a
// figure cannot be read (another system, a missing file, no GPU) it answers ok=false rather than
// inventing a number.
package hoststat

import (
	"sync"
	"time"

	"github.com/fleetgate/fleetgate"
)

// minInterval is how long a reading stays current. Many robots ask for the same host figures
// every tick; within this interval they share one reading instead of each re-reading /proc.
const minInterval = 200 * time.Millisecond

// Sampler reads host load. It is safe for concurrent use.
//
// CPU and network figures are rates over the interval between two readings. New takes the
// first reading, so a call a second later reports the load of that second; during the first
// 200 ms after New, rates are not yet known and report ok=false. Every figure is re-read at
// most once per 200 ms: a call within 200 ms of the last reading returns that reading's figure,
// which makes the Sampler cheap to call from many robots.
type Sampler struct {
	proc     string // root of procfs, "/proc" but for tests
	sys      string // root of sysfs, "/sys" but for tests
	diskPath string
	now      func() time.Time

	mu   sync.Mutex
	cpu  cpuRate
	net  netRate
	mem  cached[usage]
	disk cached[usage]
	gpu  cached[float64]
}

// New returns a Sampler of this host whose Disk reports the filesystem holding diskPath (the
// data directory). It takes the first CPU and network readings.
func New(diskPath string) *Sampler {
	return newSampler("/proc", "/sys", diskPath, time.Now)
}

func newSampler(proc, sys, diskPath string, now func() time.Time) *Sampler {
	s := &Sampler{proc: proc, sys: sys, diskPath: diskPath, now: now}
	t := now()
	s.cpu.prime(s.proc, t)
	s.net.prime(s.proc, t)
	return s
}

// CPU reports how busy all CPUs together were since the previous reading, 0..100, from the
// aggregate line of /proc/stat. Time waiting for I/O counts as idle.
func (s *Sampler) CPU() (percentBusy float64, ok bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cpu.get(s.proc, now)
}

// Memory reports memory in use and installed, in bytes, from /proc/meminfo: used is
// MemTotal-MemAvailable (what the kernel could not hand out without swapping), not MemFree.
func (s *Sampler) Memory() (used, total uint64, ok bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.mem.get(now, func() (usage, bool) {
		u, err := readMeminfo(s.proc)
		return u, err == nil
	})
	return u.used, u.total, ok
}

// Disk reports the space used and the size, in bytes, of the filesystem holding the path given
// to New. used is df's "Used": blocks reserved for root count as free, so an unprivileged
// process may be able to write less than total-used.
func (s *Sampler) Disk() (used, total uint64, ok bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.disk.get(now, func() (usage, bool) {
		if s.diskPath == "" {
			return usage{}, false
		}
		used, total, err := diskUsage(s.diskPath)
		return usage{used: used, total: total}, err == nil
	})
	return u.used, u.total, ok
}

// Network reports traffic over all interfaces but loopback, from /proc/net/dev: bytesPerSec is
// received plus sent per second since the previous reading; capacityBytesPerSec sums the link
// speeds in /sys/class/net/<if>/speed (0 for an interface whose speed is unknown, such as a
// virtual or wireless one, so 0 in all means unknown); totalBytes is the sum of the kernel's
// received and sent counters (since boot, not since New).
func (s *Sampler) Network() (bytesPerSec, capacityBytesPerSec float64, totalBytes uint64, ok bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.net.get(s.proc, s.sys, now)
	return f.rate, f.capacity, f.total, ok
}

// GPU reports how busy the GPUs are, 0..100, from the amdgpu driver's
// /sys/class/drm/card<N>/device/gpu_busy_percent, averaged over the cards that have one.
// Without such a file (no GPU, or a driver that does not offer it) ok is false; that is normal.
func (s *Sampler) GPU() (percentBusy float64, ok bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gpu.get(now, func() (float64, bool) {
		return readGPUBusy(s.sys)
	})
}

type usage struct{ used, total uint64 }

// cached holds a figure that is not a rate: read afresh once it is minInterval old.
type cached[T any] struct {
	at  time.Time // zero: never read
	val T
	ok  bool
}

func (c *cached[T]) get(now time.Time, read func() (T, bool)) (T, bool) {
	if !c.at.IsZero() && now.Sub(c.at) < minInterval {
		return c.val, c.ok
	}
	c.val, c.ok = read()
	c.at = now
	return c.val, c.ok
}

// cpuRate turns the cumulative tick counters of /proc/stat into a busy percentage.
type cpuRate struct {
	base   cpuTimes
	baseOK bool
	at     time.Time // of the base reading, or of the failed attempt
	pct    float64
	ok     bool
}

func (c *cpuRate) prime(proc string, now time.Time) {
	c.base, c.baseOK = readCPUTimes(proc)
	c.at = now
}

func (c *cpuRate) get(proc string, now time.Time) (float64, bool) {
	if now.Sub(c.at) < minInterval {
		return c.pct, c.ok
	}
	cur, ok := readCPUTimes(proc)
	if !ok {
		c.baseOK, c.at, c.pct, c.ok = false, now, 0, false
		return 0, false
	}
	if !c.baseOK {
		c.base, c.baseOK, c.at = cur, true, now
		return c.pct, c.ok
	}
	if pct, ok := busyPercent(c.base, cur); ok {
		c.pct, c.ok = pct, true
	}
	// With no tick in between (or counters that went back) the last figure stands.
	c.base, c.at = cur, now
	return c.pct, c.ok
}

// busyPercent is the share of ticks between two readings that were neither idle nor iowait.
func busyPercent(prev, cur cpuTimes) (float64, bool) {
	// Signed differences: a counter that went back (iowait may, per the kernel docs) must not
	// wrap around into a huge delta.
	total := int64(cur.total - prev.total)
	if total <= 0 {
		return 0, false
	}
	idle := min(max(int64(cur.idle-prev.idle), 0), total)
	return 100 * float64(total-idle) / float64(total), true
}

// netRate turns the cumulative byte counters of /proc/net/dev into a rate.
type netRate struct {
	base   map[string]ifBytes
	baseOK bool
	at     time.Time // of the base reading, or of the failed attempt
	last   netFigure
	ok     bool
}

type netFigure struct {
	rate, capacity float64
	total          uint64
}

func (n *netRate) prime(proc string, now time.Time) {
	base, err := readNetDev(proc)
	n.base, n.baseOK, n.at = base, err == nil, now
}

func (n *netRate) get(proc, sys string, now time.Time) (netFigure, bool) {
	if now.Sub(n.at) < minInterval {
		return n.last, n.ok
	}
	cur, err := readNetDev(proc)
	if err != nil {
		n.base, n.baseOK, n.at, n.last, n.ok = nil, false, now, netFigure{}, false
		return netFigure{}, false
	}
	if !n.baseOK {
		n.base, n.baseOK, n.at = cur, true, now
		return n.last, n.ok
	}
	elapsed := now.Sub(n.at).Seconds()
	var f netFigure
	var moved uint64
	for name, c := range cur {
		f.total += c.rx + c.tx
		f.capacity += linkCapacity(sys, name)
		// Only interfaces seen both times, and only counters that did not go back (a
		// re-created interface, a 32-bit counter wrapping): those intervals are lost, not
		// turned into a spike.
		if b, ok := n.base[name]; ok {
			if c.rx >= b.rx {
				moved += c.rx - b.rx
			}
			if c.tx >= b.tx {
				moved += c.tx - b.tx
			}
		}
	}
	f.rate = float64(moved) / elapsed
	n.base, n.at, n.last, n.ok = cur, now, f, true
	return f, true
}

// Metric is the contract's value of one of the host's metric types (Cpu, Gpu, Ram, Disk,
// Network; DESIGN's metric classes), for a robot source that reports the machine it runs on.
// ok is false for another type, for a nil s, or when the host does not tell.
func (s *Sampler) Metric(t fleetgate.MetricType) (value any, ok bool) {
	if s == nil {
		return nil, false
	}
	switch t {
	case fleetgate.MetricCpu:
		return s.CPU()
	case fleetgate.MetricGpu:
		return s.GPU()
	case fleetgate.MetricRam:
		used, total, ok := s.Memory()
		return fleetgate.Usage{Used: float64(used), Limit: float64(total)}, ok
	case fleetgate.MetricDisk:
		used, total, ok := s.Disk()
		return fleetgate.Usage{Used: float64(used), Limit: float64(total)}, ok
	case fleetgate.MetricNetwork:
		rate, capacity, _, ok := s.Network()
		return fleetgate.Usage{Used: rate, Limit: capacity}, ok
	}
	return nil, false
}
