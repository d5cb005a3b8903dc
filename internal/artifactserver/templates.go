package artifactserver

import (
	"embed"
	"html/template"
)

//go:embed templates/*.html
var templateFS embed.FS

// The pages, each "page" of base.html with its own "title" and "content".
var (
	indexTemplate = parsePage("templates/index.html")
	runTemplate   = parsePage("templates/run.html")
)

func parsePage(file string) *template.Template {
	return template.Must(template.ParseFS(templateFS, "templates/base.html", file))
}
