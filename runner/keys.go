package runner

import (
	"os"
	"strings"
	"sync"

	"github.com/autocoder/autocoder/config"
)

// keyVars are the variables that may hold the model API's key under cfg.
func keyVars(cfg config.Config) []string {
	vars := []string{config.DefaultAPIKeyEnv}
	if k := cfg.Model.APIKeyEnv; k != "" && k != config.DefaultAPIKeyEnv {
		vars = append(vars, k)
	}
	return vars
}

// withdrawnKeys holds the values withdrawKeys took out of the environment.
var withdrawnKeys sync.Map

// withdrawKeys takes the model API's key ([model] api_key_env, and
// OPENAI_API_KEY) out of autocoder's environment as soon as autocoder.toml
// names its variable, before the engine opens (New calls it): every process
// autocoder starts inherits that environment, so a program a response runs
// (or a verify command that runs code the response wrote) could write the
// key into a commit or send it anywhere, and git runs the hooks a program
// may have configured (core.fsmonitor, at git status). Nothing but run's
// request needs the key, and run reads it with APIKey. The environment
// autocoder started with stays in /proc/PID/environ, which sealEnviron
// keeps from the user's programs. A step's own variables may set these
// names again only where [programs] env allows.
//
// The variable an untrusted repository file names as the key's is withdrawn
// too, when its name says it holds a secret: that only narrows what
// programs see (and a file naming PATH cannot take it from git).
func withdrawKeys(s config.Settings) {
	withdraw(s.Config)
	if k := strings.ToUpper(s.IfTrusted.Model.APIKeyEnv); strings.Contains(k, "KEY") || strings.Contains(k, "TOKEN") || strings.Contains(k, "SECRET") {
		withdraw(s.IfTrusted)
	}
}

// withdraw takes the variables of keyVars(cfg) out of the environment.
func withdraw(cfg config.Config) {
	sealEnviron()
	for _, k := range keyVars(cfg) {
		if v, ok := os.LookupEnv(k); ok {
			withdrawnKeys.Store(k, v)
			os.Unsetenv(k)
		}
	}
}

// APIKey is the value of the variable name, which withdrawKeys may have
// taken out of the environment.
func APIKey(name string) string {
	if v, ok := withdrawnKeys.Load(name); ok {
		return v.(string)
	}
	return os.Getenv(name)
}
