package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/artifactserver"
	"github.com/benchwright/benchwright/internal/report/page"
)

// publishToken is where the campaign's report step mounts its projected
// ServiceAccount token of audience artifactserver.TokenAudience (the pod's
// default token is refused: the API server accepts it too).
const publishToken = "/var/run/secrets/benchwright/publish/token"

// publishFlags are report's flags for publishing a campaign's report.
type publishFlags struct {
	publish   bool
	campaign  string
	server    string
	tokenFile string
	caFile    string
}

func (p *publishFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&p.publish, "publish", false, "store the report (html, md, csv) in the manager's artifact store as the campaign's")
	cmd.Flags().StringVar(&p.campaign, "campaign", "", "the campaign to publish as (default: the value of "+benchv1.CampaignLabel+" in -l)")
	cmd.Flags().StringVar(&p.server, "server", "", "the manager's artifact server, https:// only (default: https://SERVICE.NAMESPACE.svc:8443 of --manager); with --publish, runs in the manager's own store are read there too, with the token")
	cmd.Flags().StringVar(&p.tokenFile, "token-file", publishToken, "a file holding the bearer token to publish (and read) with: a ServiceAccount token of audience "+artifactserver.TokenAudience)
	cmd.Flags().StringVar(&p.caFile, "ca-file", "", "PEM CA certificates to trust for --server besides the system's (the chart's artifact-server CA)")
	_ = cmd.MarkFlagFilename("token-file")
	_ = cmd.MarkFlagFilename("ca-file")
}

// run publishes rep in every format, then writes -o if it was given too.
func (p publishFlags) run(cmd *cobra.Command, cluster clusterFlags, rep *page.Report, out, format string) error {
	campaign, err := p.campaignName(cluster.selector)
	if err != nil {
		return err
	}
	server, err := p.serverURL(cluster)
	if err != nil {
		return err
	}
	client, err := p.httpClient()
	if err != nil {
		return err
	}
	token, err := os.ReadFile(p.tokenFile)
	if err != nil {
		return fmt.Errorf("--publish needs a ServiceAccount token of audience %s: %w (mount a projected token, or give --token-file)", artifactserver.TokenAudience, err)
	}
	ns, err := cluster.namespace()
	if err != nil {
		return err
	}
	for _, f := range reportFormats {
		var buf bytes.Buffer
		if err := writerOf(rep, f)(&buf); err != nil {
			return err
		}
		target := server + "/campaigns/" + url.PathEscape(ns) + "/" + url.PathEscape(campaign) + "/report." + f
		if err := putReport(cmd.Context(), client, target, strings.TrimSpace(string(token)), buf.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "benchwright: published %s\n", target)
	}
	if out == "" || out == "-" {
		return nil
	}
	return writeFile(out, writerOf(rep, format))
}

// reader reads the manager's store where the report is published, with the
// same token: the campaign's report step reads its runs so.
func (p publishFlags) reader(cluster clusterFlags) (*artifactReader, error) {
	server, err := p.serverURL(cluster)
	if err != nil {
		return nil, err
	}
	client, err := p.httpClient()
	if err != nil {
		return nil, err
	}
	token, err := os.ReadFile(p.tokenFile)
	if err != nil {
		return nil, fmt.Errorf("--publish needs a ServiceAccount token of audience %s: %w (mount a projected token, or give --token-file)", artifactserver.TokenAudience, err)
	}
	return &artifactReader{server: server, token: strings.TrimSpace(string(token)), client: client}, nil
}

// campaignName is --campaign, else the campaign label's value in the selector.
func (p publishFlags) campaignName(selector string) (string, error) {
	if p.campaign != "" {
		return p.campaign, nil
	}
	if name := selectedCampaign(selector); name != "" {
		return name, nil
	}
	return "", fmt.Errorf("--publish: name the campaign with --campaign, or select it with -l %s=NAME", benchv1.CampaignLabel)
}

// serverURL is --server, else the manager Service's cluster address; the
// token goes over TLS only.
func (p publishFlags) serverURL(cluster clusterFlags) (string, error) {
	if p.server != "" {
		if !strings.HasPrefix(p.server, "https://") {
			return "", fmt.Errorf("--server %s: the token is sent over https:// only", p.server)
		}
		return strings.TrimSuffix(p.server, "/"), nil
	}
	ns, svc, err := cluster.managerService()
	if err != nil {
		return "", err
	}
	return "https://" + svc + "." + ns + ".svc:8443", nil
}

// httpClient trusts the system's roots and --ca-file's certificates.
func (p publishFlags) httpClient() (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if p.caFile != "" {
		pem, err := os.ReadFile(p.caFile)
		if err != nil {
			return nil, fmt.Errorf("--ca-file: %w", err)
		}
		roots, err := x509.SystemCertPool()
		if err != nil {
			roots = x509.NewCertPool()
		}
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--ca-file %s holds no PEM certificate", p.caFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr, Timeout: 2 * time.Minute}, nil
}

// putReport PUTs one report, and says what the server answered when it refused.
func putReport(ctx context.Context, client *http.Client, target, token string, body []byte) error {
	resp, err := doRetrying(ctx, client, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, target, bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return req, err
	})
	if err != nil {
		return fmt.Errorf("publishing the report: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("publishing the report: %s answered %s: %s", target, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
