package api

import (
	_ "embed"
	"net/http"

	"github.com/labstack/echo/v4"
)

// openAPIDocument describes every v2 REST route; TestOpenAPIMatchesRoutes keeps the two equal.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPI serves the OpenAPI 3.1 document. It needs no auth: it describes, it reveals nothing.
func OpenAPI(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDocument)
}
