package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/autocoder/autocoder/config"
)

// verifier runs the [verify] command of cfg, or is nil when it sets none.
func verifier(cfg config.Config) Verifier {
	if strings.TrimSpace(cfg.Verify.Command) == "" {
		return nil
	}
	return func(ctx context.Context, root string) (string, error) {
		r, err := Run(ctx, Spec{Command: cfg.Verify.Command, Shell: true, Dir: root,
			Timeout: cfg.Verify.Timeout, MaxOutput: cfg.Programs.MaxOutputBytes})
		out := string(r.Stdout) + string(r.Stderr)
		switch {
		case err != nil:
			return out, err
		case r.TimedOut:
			return out, fmt.Errorf("timed out after %s", cfg.Verify.Timeout)
		case r.ExitCode != 0:
			return out, fmt.Errorf("exit code %d", r.ExitCode)
		}
		return out, nil
	}
}
