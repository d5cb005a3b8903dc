package pki

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// WriteKubeconfig writes OUT, unless it exists: a kubeconfig for SERVER,
// trusting the CA certificate file CA, that authenticates with the client
// certificate NAME.crt and key NAME.key beside CA, all embedded. Its cluster
// and context are named CONTEXT, its user NAME.
func WriteKubeconfig(out, context, server, ca, name string) error {
	if exists(out) {
		return nil
	}
	dir := filepath.Dir(ca)
	files := map[string][]byte{}
	for _, f := range []string{ca, filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")} {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		files[f] = data
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[context] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: files[ca]}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{
		ClientCertificateData: files[filepath.Join(dir, name+".crt")],
		ClientKeyData:         files[filepath.Join(dir, name+".key")],
	}
	cfg.Contexts[context] = &clientcmdapi.Context{Cluster: context, AuthInfo: name}
	cfg.CurrentContext = context
	return writeConfig(out, cfg)
}

// WriteImpersonating writes OUT: the current context of the kubeconfig IN,
// alone and with every file it names embedded, whose user impersonates USER
// (system:serviceaccount:NS:NAME): the admin's credentials acting with
// exactly USER's permissions.
func WriteImpersonating(in, out, user string) error {
	cfg, err := clientcmd.LoadFromFile(in)
	if err != nil {
		return err
	}
	if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
		return err
	}
	if err := clientcmdapi.MinifyConfig(cfg); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if err := clientcmdapi.FlattenConfig(cfg); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	auth := cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo]
	if auth == nil {
		return fmt.Errorf("%s: the current context names no user", in)
	}
	auth.Impersonate = user
	return writeConfig(out, cfg)
}

func writeConfig(out string, cfg *clientcmdapi.Config) error {
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	return writeFile(out, data, 0o600)
}
