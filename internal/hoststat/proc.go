package hoststat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuTimes are the aggregate tick counters of /proc/stat that matter for a busy percentage.
type cpuTimes struct {
	total uint64 // user+nice+system+idle+iowait+irq+softirq+steal
	idle  uint64 // idle+iowait
}

func readCPUTimes(proc string) (cpuTimes, bool) {
	b, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return cpuTimes{}, false
	}
	t, err := parseStat(b)
	return t, err == nil
}

// parseStat reads the aggregate "cpu" line of /proc/stat: user nice system idle iowait irq
// softirq steal guest guest_nice. guest and guest_nice are already counted in user and nice,
// so they stay out of the total. Old kernels have fewer columns; four is the minimum.
func parseStat(b []byte) (cpuTimes, error) {
	for line := range bytes.Lines(b) {
		fields := strings.Fields(string(line))
		if len(fields) == 0 || fields[0] != "cpu" {
			continue
		}
		cols := fields[1:]
		if len(cols) < 4 {
			return cpuTimes{}, fmt.Errorf("stat: cpu line has %d columns", len(cols))
		}
		var t cpuTimes
		for i, col := range cols[:min(len(cols), 8)] {
			v, err := strconv.ParseUint(col, 10, 64)
			if err != nil {
				return cpuTimes{}, fmt.Errorf("stat: cpu column %d: %w", i, err)
			}
			t.total += v
			if i == 3 || i == 4 { // idle, iowait
				t.idle += v
			}
		}
		return t, nil
	}
	return cpuTimes{}, errors.New("stat: no cpu line")
}

func readMeminfo(proc string) (usage, error) {
	b, err := os.ReadFile(filepath.Join(proc, "meminfo"))
	if err != nil {
		return usage{}, err
	}
	return parseMeminfo(b)
}

// parseMeminfo takes MemTotal and MemAvailable (kernels since 3.14 have it). Without
// MemAvailable there is no honest "used": MemFree counts the page cache as used.
func parseMeminfo(b []byte) (usage, error) {
	var total, avail uint64
	var haveTotal, haveAvail bool
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, rest, found := strings.Cut(sc.Text(), ":")
		if !found || (key != "MemTotal" && key != "MemAvailable") {
			continue
		}
		v, err := parseKB(rest)
		if err != nil {
			return usage{}, fmt.Errorf("meminfo: %s: %w", key, err)
		}
		if key == "MemTotal" {
			total, haveTotal = v, true
		} else {
			avail, haveAvail = v, true
		}
	}
	if err := sc.Err(); err != nil {
		return usage{}, err
	}
	if !haveTotal || !haveAvail {
		return usage{}, errors.New("meminfo: MemTotal or MemAvailable missing")
	}
	if avail > total {
		return usage{}, fmt.Errorf("meminfo: MemAvailable %d > MemTotal %d", avail, total)
	}
	return usage{used: total - avail, total: total}, nil
}

// parseKB reads " 16314256 kB" into bytes (the kernel's kB is 1024 bytes).
func parseKB(s string) (uint64, error) {
	fields := strings.Fields(s)
	if len(fields) != 2 || fields[1] != "kB" {
		return 0, fmt.Errorf("want \"<n> kB\", got %q", strings.TrimSpace(s))
	}
	v, err := strconv.ParseUint(fields[0], 10, 64)
	if err != nil {
		return 0, err
	}
	if v > (1<<64-1)/1024 {
		return 0, fmt.Errorf("%d kB overflows", v)
	}
	return v * 1024, nil
}

// ifBytes are an interface's cumulative received and sent byte counters.
type ifBytes struct{ rx, tx uint64 }

func readNetDev(proc string) (map[string]ifBytes, error) {
	b, err := os.ReadFile(filepath.Join(proc, "net", "dev"))
	if err != nil {
		return nil, err
	}
	return parseNetDev(b)
}

// parseNetDev reads /proc/net/dev, leaving out loopback: its traffic never leaves the host.
// A line is "name: 8 receive columns, 8 transmit columns"; bytes are the first of each group.
// The two header lines have no colon.
func parseNetDev(b []byte) (map[string]ifBytes, error) {
	out := make(map[string]ifBytes)
	for line := range bytes.Lines(b) {
		// A long name may touch the counters ("eth0:123"), so cut at the colon, not at spaces.
		name, rest, found := strings.Cut(string(line), ":")
		if !found {
			continue
		}
		name = strings.TrimSpace(name)
		if name == "lo" {
			continue
		}
		cols := strings.Fields(rest)
		if name == "" || len(cols) < 9 {
			return nil, fmt.Errorf("net/dev: malformed line %q", strings.TrimSpace(string(line)))
		}
		rx, err1 := strconv.ParseUint(cols[0], 10, 64)
		tx, err2 := strconv.ParseUint(cols[8], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("net/dev: %s: %w", name, err)
		}
		out[name] = ifBytes{rx: rx, tx: tx}
	}
	return out, nil
}

// linkCapacity is an interface's link speed in bytes per second, 0 when unknown: the speed
// file is absent, unreadable (EINVAL for a link that is down or virtual) or says -1.
func linkCapacity(sys, name string) float64 {
	if name != filepath.Base(name) || name == "." || name == ".." {
		return 0 // never a path out of /sys/class/net
	}
	b, err := os.ReadFile(filepath.Join(sys, "class", "net", name, "speed"))
	if err != nil {
		return 0
	}
	mbps, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || mbps <= 0 {
		return 0
	}
	return float64(mbps) * 1e6 / 8
}

// readGPUBusy averages gpu_busy_percent over the DRM cards that offer it. Only "card<N>" is a
// card; "card0-DP-1" and the like are its connectors.
func readGPUBusy(sys string) (float64, bool) {
	dirs, err := os.ReadDir(filepath.Join(sys, "class", "drm"))
	if err != nil {
		return 0, false
	}
	var sum float64
	var n int
	for _, d := range dirs {
		num, isCard := strings.CutPrefix(d.Name(), "card")
		if !isCard || num == "" || strings.Trim(num, "0123456789") != "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(sys, "class", "drm", d.Name(), "device", "gpu_busy_percent"))
		if err != nil {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || v > 100 {
			continue
		}
		sum += float64(v)
		n++
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}
