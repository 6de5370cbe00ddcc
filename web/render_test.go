package web

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// halfPage writes the start of a page, then fails, as a component whose data breaks
// half-way would.
var halfPage = templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
	io.WriteString(w, "<html><body><h1>Secret half of the page")
	return errors.New("the data broke")
})

func TestRenderFailureIsACleanErrorPage(t *testing.T) {
	p := New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	e := echo.New()
	rec := httptest.NewRecorder()
	c := e.NewContext(httptest.NewRequest(http.MethodGet, "/robots/x", nil), rec)
	h := p.handle(func(c echo.Context) error { return p.render(c, http.StatusOK, halfPage) })
	if err := h(c); err != nil {
		t.Fatalf("handler returned %v; the page handler answers itself", err)
	}
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", rec.Code)
	}
	body := rec.Body.String()
	if strings.Contains(body, "Secret half") {
		t.Errorf("the half-rendered page reached the client:\n%s", body)
	}
	if !strings.HasPrefix(body, "<!doctype html>") || !strings.Contains(body, "Internal Server Error") || strings.Contains(body, "the data broke") {
		t.Errorf("want a whole error page without the cause:\n%s", body)
	}
}

func TestLocalPath(t *testing.T) {
	for in, want := range map[string]string{
		"": "/", "/": "/", "/robots/x": "/robots/x", "//evil.example": "/", "https://evil.example": "/",
		"/\\evil.example": "/", "robots": "/", "/a\r\nSet-Cookie: x": "/",
		"/\t/evil.example": "/", "/\n/evil.example": "/", "/x\\y": "/", "/\x7f/evil": "/",
		"/robots?fleet=a&online=1": "/robots?fleet=a&online=1",
	} {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}
