package record

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetgate/fleetgate"
	"github.com/fleetgate/fleetgate/internal/mcap/mcaptest"
)

// helperEnv names the directory in which this test binary, started again by
// TestKillDuringRecording, records until it is killed.
const helperEnv = "FLEETGATE_RECORD_HELPER_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		if err := recordUntilKilled(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	os.Exit(m.Run())
}

// recordUntilKilled records a pose and a camera stream of a test robot, forever.
func recordUntilKilled(dir string) error {
	rec, err := Open(Config{Dir: dir, ChunkSize: 16 << 10, FlushEvery: 10 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	raw := newTestRobot("robot1")
	robot := rec.Wrap(raw)
	r, err := robot.StartRecording(context.Background(), fleetgate.RecordingRequest{Streams: []fleetgate.StreamKey{poseKey, imageKey}})
	if err != nil {
		return err
	}
	fmt.Println("recording", r.ID)
	for i := 0; ; i++ {
		raw.Emit(poseKey, typePose, posePayload(i))
		raw.Emit(imageKey, typeImage, imagePayload(i, 4<<10))
		time.Sleep(2 * time.Millisecond)
	}
}

// TestKillDuringRecording kills an agent's recorder with SIGKILL mid-recording: before
// recovery, a streaming reader reads the file's complete chunks; the next start finalises
// the file, which an indexed reader then opens with every message of those chunks, and
// reports the recording as interrupted.
func TestKillDuringRecording(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the recording process said %q: %v", line, err)
	}
	id, ok := strings.CutPrefix(strings.TrimSpace(line), "recording ")
	if !ok {
		t.Fatalf("the recording process said %q", line)
	}
	path := filepath.Join(dir, id+".mcap")
	waitFor(t, "several chunks on disk", func() bool {
		st, err := os.Stat(path)
		return err == nil && st.Size() > 200<<10
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	// As the kill left it: no summary, readable front to back up to the last whole chunk.
	crashed := filepath.Join(t.TempDir(), "crashed.mcap")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(crashed, data, 0o600)
	streamed := mcaptest.Stream(t, crashed)
	if streamed.Messages == 0 || streamed.Done {
		t.Fatalf("a streaming reader of the killed file: %+v", streamed)
	}

	rec := openRecorder(t, Config{Dir: dir})
	robot := rec.Wrap(newTestRobot("robot1"))
	list, _ := robot.Recordings(bg)
	if len(list) != 1 {
		t.Fatalf("after the restart, recordings %+v", list)
	}
	got := list[0]
	if got.ID != id || got.State != fleetgate.RecordingStopped || got.ErrorType != fleetgate.RecordingInterrupted ||
		got.Messages != int64(streamed.Messages) || got.EndTime.Before(got.StartTime) {
		t.Fatalf("the interrupted recording: %+v; the streaming reader read %d messages", got, streamed.Messages)
	}
	report := mcaptest.Indexed(t, path)
	if int(report.Statistics.MessageCount) != streamed.Messages || report.Topic("/camera/image") == nil ||
		report.Topic("/camera/image").Count+report.Topic("/base/pose").Count != streamed.Messages {
		t.Fatalf("@mcap/core reads %d messages from the finalised file, the streaming reader %d before",
			report.Statistics.MessageCount, streamed.Messages)
	}
	resources, _ := robot.Resources(bg)
	st, _ := os.Stat(path)
	found := false
	for _, res := range resources {
		found = found || res.ID == id && res.Size == st.Size()
	}
	if !found {
		t.Fatalf("the finalised recording is not a resource of %d bytes: %+v", st.Size(), resources)
	}
}
