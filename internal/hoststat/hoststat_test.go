package hoststat

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// clock is a manual clock; tests move it, the sampler reads it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fixture is a fake /proc and /sys under t.TempDir().
type fixture struct {
	t         *testing.T
	proc, sys string
	clock     *clock
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	return &fixture{
		t:     t,
		proc:  filepath.Join(root, "proc"),
		sys:   filepath.Join(root, "sys"),
		clock: &clock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)},
	}
}

// write puts content at path (joined from elems), creating directories.
func (f *fixture) write(content string, elems ...string) {
	f.t.Helper()
	path := filepath.Join(elems...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) stat(cpuLine string) {
	f.t.Helper()
	// The per-CPU lines must not be mistaken for the aggregate.
	f.write(cpuLine+"\ncpu0 9 9 9 9 9 9 9 9 0 0\nintr 12345 0 0\nctxt 999\n", f.proc, "stat")
}

func (f *fixture) sampler() *Sampler {
	return newSampler(f.proc, f.sys, f.t.TempDir(), f.clock.Now)
}

func TestCPUFromTwoReadings(t *testing.T) {
	tests := []struct {
		name        string
		first, then string
		want        float64
	}{
		{
			// total 1000 -> 1800 (guest 40 is inside user, not added), idle+iowait 850 -> 1350:
			// busy = 800 - 500 = 300 of 800.
			name:  "busy share of total, guest not counted twice",
			first: "cpu  100 0 50 800 50 0 0 0 0 0",
			then:  "cpu  300 0 150 1200 150 0 0 0 40 0",
			want:  37.5,
		},
		{
			name:  "irq softirq steal are busy",
			first: "cpu  0 0 0 0 0 0 0 0 0 0",
			then:  "cpu  10 10 10 50 0 5 5 10 0 0",
			want:  50,
		},
		{
			name:  "iowait is idle",
			first: "cpu  0 0 0 0 0 0 0 0 0 0",
			then:  "cpu  25 0 0 25 50 0 0 0 0 0",
			want:  25,
		},
		{
			name:  "all idle",
			first: "cpu  5 5 5 5 5 5 5 5 0 0",
			then:  "cpu  5 5 5 105 5 5 5 5 0 0",
			want:  0,
		},
		{
			name:  "all busy",
			first: "cpu  5 5 5 5 5 5 5 5 0 0",
			then:  "cpu  105 5 5 5 5 5 5 5 0 0",
			want:  100,
		},
		{
			// The kernel documents that iowait can decrease; it must not wrap into a huge idle.
			name:  "iowait going back is clamped",
			first: "cpu  0 0 0 100 50 0 0 0 0 0",
			then:  "cpu  100 0 0 100 40 0 0 0 0 0",
			want:  100,
		},
		{
			name:  "old kernel with four columns",
			first: "cpu 10 0 10 80",
			then:  "cpu 40 0 40 120",
			want:  60,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.stat(tt.first)
			s := f.sampler()
			f.stat(tt.then)
			f.clock.Advance(time.Second)
			got, ok := s.CPU()
			if !ok || got != tt.want {
				t.Errorf("CPU() = %v, %v; want %v, true", got, ok, tt.want)
			}
		})
	}
}

func TestCPUReusesReadingWithin200ms(t *testing.T) {
	f := newFixture(t)
	f.stat("cpu  0 0 0 100 0 0 0 0 0 0")
	s := f.sampler()

	f.stat("cpu  50 0 0 150 0 0 0 0 0 0")
	f.clock.Advance(199 * time.Millisecond)
	if got, ok := s.CPU(); ok {
		t.Fatalf("CPU() 199 ms after New = %v, true; want ok=false (no interval yet)", got)
	}
	f.clock.Advance(time.Millisecond)
	if got, ok := s.CPU(); !ok || got != 50 {
		t.Fatalf("CPU() 200 ms after New = %v, %v; want 50, true", got, ok)
	}

	// A new load within 200 ms of that reading is not seen yet ...
	f.stat("cpu  50 0 0 250 0 0 0 0 0 0")
	f.clock.Advance(150 * time.Millisecond)
	if got, ok := s.CPU(); !ok || got != 50 {
		t.Fatalf("CPU() 150 ms after the reading = %v, %v; want the last figure 50, true", got, ok)
	}
	// ... and is once 200 ms have passed.
	f.clock.Advance(50 * time.Millisecond)
	if got, ok := s.CPU(); !ok || got != 0 {
		t.Fatalf("CPU() 200 ms after the reading = %v, %v; want 0, true", got, ok)
	}
}

func TestCPUWithoutTicksKeepsLastFigure(t *testing.T) {
	f := newFixture(t)
	f.stat("cpu  0 0 0 100 0 0 0 0 0 0")
	s := f.sampler()
	f.stat("cpu  30 0 0 170 0 0 0 0 0 0")
	f.clock.Advance(time.Second)
	if got, ok := s.CPU(); !ok || got != 30 {
		t.Fatalf("CPU() = %v, %v; want 30, true", got, ok)
	}
	f.clock.Advance(time.Second)
	if got, ok := s.CPU(); !ok || got != 30 {
		t.Errorf("CPU() with unchanged counters = %v, %v; want the last figure 30, true", got, ok)
	}
}

func TestCPUFileAppearingLater(t *testing.T) {
	f := newFixture(t)
	s := f.sampler() // no /proc/stat at all
	f.clock.Advance(time.Second)
	if got, ok := s.CPU(); ok {
		t.Fatalf("CPU() without /proc/stat = %v, true; want ok=false", got)
	}
	f.stat("cpu  0 0 0 100 0 0 0 0 0 0")
	f.clock.Advance(time.Second)
	if got, ok := s.CPU(); ok {
		t.Fatalf("CPU() on the first reading = %v, true; want ok=false (it only primes)", got)
	}
	f.stat("cpu  20 0 0 180 0 0 0 0 0 0")
	f.clock.Advance(time.Second)
	if got, ok := s.CPU(); !ok || got != 20 {
		t.Errorf("CPU() = %v, %v; want 20, true", got, ok)
	}
}

func TestMemory(t *testing.T) {
	const kB = 1024
	tests := []struct {
		name              string
		meminfo           string
		wantUsed, wantTot uint64
		wantOK            bool
	}{
		{
			name: "used is total minus available",
			meminfo: "MemTotal:       16314256 kB\nMemFree:          512000 kB\n" +
				"MemAvailable:    10000000 kB\nBuffers:          100 kB\nHugePages_Total:       0\n",
			wantUsed: (16314256 - 10000000) * kB, wantTot: 16314256 * kB, wantOK: true,
		},
		{
			name:    "no MemAvailable",
			meminfo: "MemTotal:       16314256 kB\nMemFree:          512000 kB\n",
		},
		{
			name:    "no MemTotal",
			meminfo: "MemFree:          512000 kB\nMemAvailable:    10000000 kB\n",
		},
		{
			name:    "value not a number",
			meminfo: "MemTotal:       lots kB\nMemAvailable:    10000000 kB\n",
		},
		{
			name:    "unexpected unit",
			meminfo: "MemTotal:       16314256 MB\nMemAvailable:    10000000 kB\n",
		},
		{
			name:    "available above total",
			meminfo: "MemTotal:       100 kB\nMemAvailable:    200 kB\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(tt.meminfo, f.proc, "meminfo")
			used, total, ok := f.sampler().Memory()
			if used != tt.wantUsed || total != tt.wantTot || ok != tt.wantOK {
				t.Errorf("Memory() = %d, %d, %v; want %d, %d, %v",
					used, total, ok, tt.wantUsed, tt.wantTot, tt.wantOK)
			}
		})
	}
}

func TestMemoryRereadAfter200ms(t *testing.T) {
	f := newFixture(t)
	f.write("MemTotal: 100 kB\nMemAvailable: 60 kB\n", f.proc, "meminfo")
	s := f.sampler()
	if used, _, ok := s.Memory(); !ok || used != 40*1024 {
		t.Fatalf("Memory() used = %d, %v; want %d", used, ok, 40*1024)
	}
	f.write("MemTotal: 100 kB\nMemAvailable: 10 kB\n", f.proc, "meminfo")
	f.clock.Advance(100 * time.Millisecond)
	if used, _, _ := s.Memory(); used != 40*1024 {
		t.Errorf("Memory() within 200 ms used = %d; want the last figure %d", used, 40*1024)
	}
	f.clock.Advance(100 * time.Millisecond)
	if used, _, _ := s.Memory(); used != 90*1024 {
		t.Errorf("Memory() after 200 ms used = %d; want %d", used, 90*1024)
	}
}

// ifc is one interface's byte counters in a /proc/net/dev fixture.
type ifc struct {
	name   string
	rx, tx uint64
}

// netDev renders /proc/net/dev; the columns other than bytes are noise that must not be read.
func netDev(ifs ...ifc) string {
	s := "Inter-|   Receive                                                |  Transmit\n" +
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
	for _, i := range ifs {
		s += i.name + ": " + strconv.FormatUint(i.rx, 10) + " 7 1 2 3 4 5 6 " +
			strconv.FormatUint(i.tx, 10) + " 8 1 2 3 4 5 6\n"
	}
	return s
}

func TestNetwork(t *testing.T) {
	f := newFixture(t)
	f.write("1000\n", f.sys, "class", "net", "eth0", "speed")  // 1000 Mb/s = 125e6 B/s
	f.write("-1\n", f.sys, "class", "net", "docker0", "speed") // unknown
	f.write("10000\n", f.sys, "class", "net", "lo", "speed")   // loopback never counts
	// wlan0 has no speed file at all.
	f.write(netDev(ifc{"lo", 1e9, 1e9}, ifc{"eth0", 1000, 2000}, ifc{"wlan0", 0, 0}, ifc{"docker0", 10, 10}),
		f.proc, "net", "dev")
	s := f.sampler()

	// Over 2 s: eth0 +3000 rx +1000 tx, wlan0 +500 rx, docker0 +500 tx; lo +1e9 each way, left out.
	f.write(netDev(ifc{"lo", 2e9, 2e9}, ifc{"eth0", 4000, 3000}, ifc{"wlan0", 500, 0}, ifc{"docker0", 10, 510}),
		f.proc, "net", "dev")
	f.clock.Advance(2 * time.Second)
	rate, capacity, total, ok := s.Network()
	if !ok {
		t.Fatal("Network() ok = false")
	}
	if want := 5000.0 / 2; rate != want {
		t.Errorf("rate = %v B/s; want %v", rate, want)
	}
	if want := 125e6; capacity != want {
		t.Errorf("capacity = %v B/s; want %v (eth0 only: -1, missing and lo give 0)", capacity, want)
	}
	if want := uint64(4000 + 3000 + 500 + 0 + 10 + 510); total != want {
		t.Errorf("total = %d; want %d", total, want)
	}
}

func TestNetworkCounterGoingBackIsNoSpike(t *testing.T) {
	f := newFixture(t)
	f.write(netDev(ifc{"eth0", 1 << 40, 100}, ifc{"eth1", 0, 0}), f.proc, "net", "dev")
	s := f.sampler()
	// eth0's rx was reset (interface re-created); eth1 appeared with traffic from before.
	f.write(netDev(ifc{"eth0", 50, 300}, ifc{"eth2", 1e6, 1e6}, ifc{"eth1", 100, 0}), f.proc, "net", "dev")
	f.clock.Advance(time.Second)
	rate, _, _, ok := s.Network()
	if want := 200.0 + 100; !ok || rate != want {
		t.Errorf("Network() rate = %v, %v; want %v, true (eth0 tx and eth1 rx only)", rate, ok, want)
	}
}

func TestNetworkParsing(t *testing.T) {
	tests := []struct {
		name    string
		dev     string
		want    map[string]ifBytes
		wantErr bool
	}{
		{
			name: "name touching the counters",
			dev:  "Inter-|\n face |\nverylongname0:123 1 0 0 0 0 0 0 456 1 0 0 0 0 0 0\n",
			want: map[string]ifBytes{"verylongname0": {rx: 123, tx: 456}},
		},
		{
			name: "loopback only",
			dev:  "Inter-|\n face |\n    lo: 5 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0\n",
			want: map[string]ifBytes{},
		},
		{
			name:    "short line",
			dev:     "Inter-|\n face |\n  eth0: 5 1 0 0\n",
			wantErr: true,
		},
		{
			name:    "not a number",
			dev:     "Inter-|\n face |\n  eth0: x 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0\n",
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseNetDev([]byte(tt.dev))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseNetDev() error = %v; want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if len(got) != len(tt.want) {
				t.Fatalf("parseNetDev() = %v; want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("parseNetDev()[%q] = %v; want %v", k, got[k], v)
				}
			}
		})
	}
}

func TestGPU(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string // under sys/class/drm
		want   float64
		wantOK bool
	}{
		{name: "no drm directory"},
		{
			name:  "card without the file",
			files: map[string]string{"card0/device/vendor": "0x8086\n"},
		},
		{
			name:   "one card",
			files:  map[string]string{"card0/device/gpu_busy_percent": "42\n"},
			want:   42,
			wantOK: true,
		},
		{
			name: "cards averaged, connectors ignored",
			files: map[string]string{
				"card0/device/gpu_busy_percent":      "30\n",
				"card1/device/gpu_busy_percent":      "60\n",
				"card0-DP-1/device/gpu_busy_percent": "100\n",
				"renderD128/device/gpu_busy_percent": "100\n",
			},
			want:   45,
			wantOK: true,
		},
		{
			name:  "garbage",
			files: map[string]string{"card0/device/gpu_busy_percent": "busy\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			for rel, content := range tt.files {
				f.write(content, f.sys, "class", "drm", rel)
			}
			got, ok := f.sampler().GPU()
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("GPU() = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestMissingFilesAreNotPresent(t *testing.T) {
	f := newFixture(t) // neither proc nor sys exists
	s := newSampler(f.proc, f.sys, filepath.Join(t.TempDir(), "absent"), f.clock.Now)
	f.clock.Advance(time.Second)
	if v, ok := s.CPU(); ok {
		t.Errorf("CPU() = %v, true; want ok=false", v)
	}
	if u, tot, ok := s.Memory(); ok {
		t.Errorf("Memory() = %d, %d, true; want ok=false", u, tot)
	}
	if u, tot, ok := s.Disk(); ok {
		t.Errorf("Disk() of a missing path = %d, %d, true; want ok=false", u, tot)
	}
	if r, c, tot, ok := s.Network(); ok {
		t.Errorf("Network() = %v, %v, %d, true; want ok=false", r, c, tot)
	}
	if v, ok := s.GPU(); ok {
		t.Errorf("GPU() = %v, true; want ok=false", v)
	}
	if u, tot, ok := newSampler(f.proc, f.sys, "", f.clock.Now).Disk(); ok {
		t.Errorf("Disk() with no path = %d, %d, true; want ok=false", u, tot)
	}
}

// TestHost reads this machine. On Linux every figure but the GPU must be present.
func TestHost(t *testing.T) {
	s := New(t.TempDir())
	linux := runtime.GOOS == "linux"

	// The first rate needs 200 ms after New: wait for it with a deadline, not a fixed sleep.
	var cpu float64
	var cpuOK bool
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cpu, cpuOK = s.CPU(); cpuOK || !linux {
			break
		}
	}
	if cpuOK != linux {
		t.Errorf("CPU() ok = %v on %s", cpuOK, runtime.GOOS)
	}
	if cpu < 0 || cpu > 100 {
		t.Errorf("CPU() = %v; want 0..100", cpu)
	}

	used, total, ok := s.Memory()
	if ok != linux || (ok && (total == 0 || used > total)) {
		t.Errorf("Memory() = %d, %d, %v on %s; want 0 < total, used <= total", used, total, ok, runtime.GOOS)
	}
	used, total, ok = s.Disk()
	if ok != linux || (ok && (total == 0 || used > total)) {
		t.Errorf("Disk() = %d, %d, %v on %s; want 0 < total, used <= total", used, total, ok, runtime.GOOS)
	}
	rate, capacity, _, ok := s.Network()
	if ok != linux || rate < 0 || capacity < 0 {
		t.Errorf("Network() rate %v, capacity %v, ok %v on %s", rate, capacity, ok, runtime.GOOS)
	}
	if gpu, ok := s.GPU(); ok && (gpu < 0 || gpu > 100) {
		t.Errorf("GPU() = %v; want 0..100", gpu)
	}
}

// TestConcurrentUse is for the race detector: many robots asking at once.
func TestConcurrentUse(t *testing.T) {
	s := New(t.TempDir())
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 200 {
				s.CPU()
				s.Memory()
				s.Disk()
				s.Network()
				s.GPU()
			}
		})
	}
	wg.Wait()
}
