package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	benchv1 "github.com/benchwright/benchwright/api/v1alpha1"
	"github.com/benchwright/benchwright/internal/report"
)

// inClusterToken is where a pod's ServiceAccount token is mounted.
const inClusterToken = "/var/run/secrets/kubernetes.io/serviceaccount/token"

// publishFlags are report's flags for publishing a campaign's report.
type publishFlags struct {
	publish   bool
	campaign  string
	server    string
	tokenFile string
}

func (p *publishFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&p.publish, "publish", false, "store the report (html, md, csv) in the manager's artifact store as the campaign's")
	cmd.Flags().StringVar(&p.campaign, "campaign", "", "the campaign to publish as (default: the value of "+benchv1.CampaignLabel+" in -l)")
	cmd.Flags().StringVar(&p.server, "server", "", "the manager's artifact server (default: http://SERVICE.NAMESPACE.svc:8082 of --manager)")
	cmd.Flags().StringVar(&p.tokenFile, "token-file", inClusterToken, "a file holding the bearer token to publish with")
}

// run publishes rep in every format, then writes -o if it was given too.
func (p publishFlags) run(cmd *cobra.Command, cluster clusterFlags, rep *report.Report, out, format string) error {
	campaign, err := p.campaignName(cluster.selector)
	if err != nil {
		return err
	}
	server, err := p.serverURL(cluster)
	if err != nil {
		return err
	}
	token, err := os.ReadFile(p.tokenFile)
	if err != nil {
		return fmt.Errorf("--publish needs a ServiceAccount token: %w (run it in a pod, or give --token-file)", err)
	}
	ns := cluster.ns()
	client := &http.Client{Timeout: 2 * time.Minute}
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

// campaignName is --campaign, else the campaign label's value in the selector.
func (p publishFlags) campaignName(selector string) (string, error) {
	if p.campaign != "" {
		return p.campaign, nil
	}
	if sel, err := labels.Parse(selector); err == nil {
		if reqs, ok := sel.Requirements(); ok {
			for _, r := range reqs {
				if r.Key() == benchv1.CampaignLabel && r.Values().Len() == 1 {
					return r.Values().List()[0], nil
				}
			}
		}
	}
	return "", fmt.Errorf("--publish: name the campaign with --campaign, or select it with -l %s=NAME", benchv1.CampaignLabel)
}

// serverURL is --server, else the manager Service's cluster address.
func (p publishFlags) serverURL(cluster clusterFlags) (string, error) {
	if p.server != "" {
		return strings.TrimSuffix(p.server, "/"), nil
	}
	ns, svc, err := cluster.managerService()
	if err != nil {
		return "", err
	}
	return "http://" + svc + "." + ns + ".svc:8082", nil
}

// putReport PUTs one report, and says what the server answered when it refused.
func putReport(ctx context.Context, client *http.Client, target, token string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
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
