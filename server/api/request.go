package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/fleetgate/fleetgate"
	"github.com/labstack/echo/v4"
)

// MaxBodyBytes is the largest request body any route accepts.
const MaxBodyBytes = 1 << 20

// LimitBody refuses bodies over MaxBodyBytes: at once when Content-Length says so, else
// when reading crosses the limit (http.MaxBytesError, mapped to 413).
func LimitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength > MaxBodyBytes {
			return errBodyTooLarge
		}
		if req.Body != nil && req.Body != http.NoBody {
			req.Body = http.MaxBytesReader(c.Response(), req.Body, MaxBodyBytes)
		}
		return next(c)
	}
}

// SafeHeaders gives every answer of every route, errors included, the two headers no API
// answer may go without: nosniff, and no-store (a login answer carries a bearer; robot data
// is live). A handler that may be cached says so itself (the hashed static files replace
// Cache-Control with their immutable one).
func SafeHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-store")
		return next(c)
	}
}

// decodeJSON reads a JSON object body into v: 415 for another content type, 413 past the
// size limit, 400 for anything that is not one well-formed JSON object.
func decodeJSON(c echo.Context, v any) error {
	req := c.Request()
	mediaType, _, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	if err != nil || mediaType != echo.MIMEApplicationJSON {
		return errNotJSON
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errBodyTooLarge
		}
		return fleetgate.Errorf(fleetgate.EInvalid, "reading the body failed")
	}
	if len(body) == 0 {
		return fleetgate.Errorf(fleetgate.EInvalid, "the body is empty; a JSON object is required")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return fleetgate.Errorf(fleetgate.EInvalid, "field %s must be a %s", typeErr.Field, typeErr.Type)
		}
		return fleetgate.Errorf(fleetgate.EInvalid, "the body is not valid JSON: %s", jsonErrorText(err))
	}
	return nil
}

func jsonErrorText(err error) string {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Sprintf("%v (at byte %d)", syntax, syntax.Offset)
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Sprintf("expected a JSON %s", typeErr.Type)
	}
	return err.Error()
}

// queryParam returns a query parameter that may appear at most once.
func queryParam(c echo.Context, name string) (string, error) {
	values := c.QueryParams()[name]
	switch len(values) {
	case 0:
		return "", nil
	case 1:
		return values[0], nil
	default:
		return "", fleetgate.Errorf(fleetgate.EInvalid, "query parameter %s is given %d times", name, len(values))
	}
}

// requireQuery is queryParam for a parameter that must be present and non-empty.
func requireQuery(c echo.Context, name string) (string, error) {
	v, err := queryParam(c, name)
	if err == nil && v == "" {
		err = fleetgate.Errorf(fleetgate.EInvalid, "query parameter %s is required", name)
	}
	return v, err
}

// refuseBody answers 400 when a request carries a body on a route that takes none, so a
// client that sends its fields as JSON learns why they were ignored.
func refuseBody(c echo.Context) error {
	req := c.Request()
	if req.ContentLength > 0 || (req.ContentLength < 0 && req.Body != nil && req.Body != http.NoBody) {
		var one [1]byte
		if n, _ := req.Body.Read(one[:]); n > 0 {
			return errBodyNotAllowed
		}
	}
	return nil
}
