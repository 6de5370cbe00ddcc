package sim

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/fleetgate/fleetgate/proto/catalogpb"
)

const mapResolution = 0.05 // metres per cell

// raster marks each map cell whose centre lies in a static box with 1 + the box's kind, and
// free cells with 0. Row-major from cell (0, 0) at the world origin.
func (w *world) raster() (cells []uint8, width, height int) {
	width = int(math.Round(w.width / mapResolution))
	height = int(math.Round(w.depth / mapResolution))
	cells = make([]uint8, width*height)
	// Cell i's centre is (i+0.5)*res: the cells inside [lo, hi] run from ceil(lo/res-0.5)
	// to floor(hi/res-0.5).
	span := func(lo, hi float64, n int) (int, int) {
		return max(int(math.Ceil(lo/mapResolution-0.5)), 0), min(int(math.Floor(hi/mapResolution-0.5)), n-1)
	}
	for _, b := range w.boxes {
		i0, i1 := span(b.minX, b.maxX, width)
		j0, j1 := span(b.minY, b.maxY, height)
		for j := j0; j <= j1; j++ {
			for i := i0; i <= i1; i++ {
				if cells[j*width+i] == 0 {
					cells[j*width+i] = 1 + uint8(b.kind)
				}
			}
		}
	}
	return cells, width, height
}

// occupancy is the map as a ROS occupancy grid: 100 for an occupied cell, 0 for a free one.
func occupancy(cells []uint8) []byte {
	data := make([]byte, len(cells))
	for i, c := range cells {
		if c != 0 {
			data[i] = 100
		}
	}
	return data
}

func mapPayload(data []byte, width, height int, at time.Time) []byte {
	return marshal(&catalogpb.OccupancyGrid{
		Header: header(at, frameMap),
		Info: &catalogpb.MapMetaData{
			MapLoadTime: stamp(at),
			Resolution:  mapResolution,
			Width:       uint32(width),
			Height:      uint32(height),
			Origin:      &catalogpb.Pose{Position: &catalogpb.Point{}, Orientation: yaw(0)},
		},
		Data: data,
	})
}

// mapPNG draws the raster north up, one pixel per cell: walls dark, shelves blue, the dock
// yellow, the floor light.
func mapPNG(cells []uint8, width, height int) ([]byte, error) {
	palette := color.Palette{
		0:             color.RGBA{245, 244, 238, 255}, // floor
		1 + kindWall:  color.RGBA{45, 45, 50, 255},
		1 + kindShelf: color.RGBA{50, 95, 175, 255},
		1 + kindDock:  color.RGBA{235, 190, 30, 255},
	}
	img := image.NewPaletted(image.Rect(0, 0, width, height), palette)
	for j := range height {
		copy(img.Pix[(height-1-j)*img.Stride:], cells[j*width:(j+1)*width])
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeFileAtomic replaces path with data so that a reader sees the old file or the new one,
// never a part: it writes a temporary file beside it, syncs it and renames it over.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // fails harmlessly after the rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	// The rename itself is durable only once the directory is synced.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// writeIfChanged writes data to path unless the file already holds exactly data, so that the
// file's time says when the map last changed.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return writeFileAtomic(path, data, 0o644)
}
