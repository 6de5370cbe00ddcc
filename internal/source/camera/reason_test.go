package camera

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// What viewers are told of each way a camera fails: the words an attempt gave, else read
// from ffmpeg's message as the camera's answer, else that the camera did not answer; never
// an address, a port or a system error.
func TestWordsOf(t *testing.T) {
	for _, tc := range []struct {
		err    error
		device bool
		want   string
	}{
		{errors.New("[tcp @ 0x1] Connection to tcp://10.0.0.5:554?timeout=0 failed: Connection refused"), false, wordsNoAnswer},
		{errors.New("[tcp @ 0x1] Connection to tcp://10.0.0.5:554 failed: No route to host"), false, wordsNoAnswer},
		{errors.New("lookup cam.lan on 127.0.0.53:53: no such host"), false, wordsNoAnswer},
		{errors.New("[rtsp @ 0x1] method DESCRIBE failed: 401 Unauthorized"), false, wordsCredentials},
		{errors.New("Server returned 403 Forbidden (access denied)"), false, wordsCredentials},
		{errors.New("[rtsp @ 0x1] method DESCRIBE failed: 404 Not Found"), false, wordsNoStream},
		{fmt.Errorf("%w: cam.test resolves to 127.0.0.1, a loopback address", ErrRefusedAddress), false, wordsRefusedAddress},
		{errStalled, false, wordsStalled},
		{timeoutError(noImagePrefix + " within 10s"), false, wordsNoImage},
		{timeoutError("no answer within 4.5s"), false, wordsNoAnswer},
		{fmt.Errorf("attempt: %w", failed(wordsRedirect, errors.New("the camera redirected to rtsp://127.0.0.1:22/"))), false, wordsRedirect},
		{errors.New("/dev/video0: Device or resource busy"), true, wordsDevice},
	} {
		got := wordsOf(tc.err, tc.device)
		if got != tc.want {
			t.Errorf("%v: told %q, want %q", tc.err, got, tc.want)
		}
		for _, leak := range []string{"10.0.0.5", "127.0.0", "554", "Connection", "lookup", "tcp", "route"} {
			if strings.Contains(got, leak) {
				t.Errorf("%v: told %q, which says %q", tc.err, got, leak)
			}
		}
	}
}
