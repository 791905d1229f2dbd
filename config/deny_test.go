package config

import (
	"strings"
	"testing"
)

func TestDenied(t *testing.T) {
	cases := []struct {
		deny    []string
		path    string
		pattern string // "" when nothing matches
		denied  bool
	}{
		// A name pattern matches at any depth, and what is inside a match.
		{[]string{"*.pem"}, "cert.pem", "*.pem", true},
		{[]string{"*.pem"}, "a/b/cert.pem", "*.pem", true},
		{[]string{"*.pem"}, "a/b/cert.pem.txt", "", false},
		{[]string{"*.pem"}, "keys.pem/readme", "*.pem", true},
		{[]string{".env"}, ".env", ".env", true},
		{[]string{".env"}, "svc/.env", ".env", true},
		{[]string{".env"}, ".envrc", "", false},
		{[]string{".env"}, "dotenv", "", false},
		// Anchored patterns start at the root.
		{[]string{"/autocoder.toml"}, "autocoder.toml", "/autocoder.toml", true},
		{[]string{"/autocoder.toml"}, "sub/autocoder.toml", "", false},
		{[]string{"config/*.yaml"}, "config/prod.yaml", "config/*.yaml", true},
		{[]string{"config/*.yaml"}, "x/config/prod.yaml", "", false},
		{[]string{"config/*.yaml"}, "config/a/prod.yaml", "", false},
		// "**".
		{[]string{"secrets/**"}, "secrets/a", "secrets/**", true},
		{[]string{"secrets/**"}, "secrets/a/b/c", "secrets/**", true},
		{[]string{"secrets/**"}, "secrets", "", false},
		{[]string{"secrets/**"}, "app/secrets/a", "", false},
		{[]string{"**/secrets/**"}, "app/secrets/a", "**/secrets/**", true},
		{[]string{"**/secrets/**"}, "secrets/a", "**/secrets/**", true},
		{[]string{"**/secrets"}, "a/b/secrets", "**/secrets", true},
		{[]string{"a/**/b"}, "a/b", "a/**/b", true},
		{[]string{"a/**/b"}, "a/x/y/b", "a/**/b", true},
		{[]string{"a/**/b"}, "a/x/y/c", "", false},
		{[]string{"**"}, "anything/at/all", "**", true},
		// A trailing "/" matches directories: what is inside them.
		{[]string{"build/"}, "build/out.o", "build/", true},
		{[]string{"build/"}, "src/build/out.o", "build/", true},
		{[]string{"build/"}, "build", "", false},
		{[]string{"/build/"}, "src/build/out.o", "", false},
		// Letter case does not bypass the list.
		{[]string{".env"}, "svc/.ENV", ".env", true},
		{[]string{"Secrets/**"}, "SECRETS/x", "Secrets/**", true},
		// "!" re-allows; the last match decides.
		{[]string{".env*", "!.env.example"}, ".env.example", "!.env.example", false},
		{[]string{".env*", "!.env.example"}, ".env.local", ".env*", true},
		{[]string{"!.env.example", ".env*"}, ".env.example", ".env*", true},
		{[]string{"secrets/**", "!secrets/README.md"}, "secrets/README.md", "!secrets/README.md", false},
		{[]string{`\!important`}, "!important", `\!important`, true},
		// Paths are cleaned first, in either separator form.
		{[]string{"/autocoder.toml"}, "./autocoder.toml", "/autocoder.toml", true},
		{[]string{"/autocoder.toml"}, "a/../autocoder.toml", "/autocoder.toml", true},
		{[]string{"secrets/**"}, "/secrets//x", "secrets/**", true},
		{[]string{"*"}, ".", "", false},
		{[]string{"*"}, "", "", false},
		// Glob classes and escapes.
		{[]string{"id_[rd]sa"}, "home/id_rsa", "id_[rd]sa", true},
		{[]string{"id_[rd]sa"}, "home/id_ecdsa", "", false},
		{[]string{`a\*b`}, "a*b", `a\*b`, true},
		{[]string{`a\*b`}, "axb", "", false},
		// No patterns, no denial.
		{nil, "anything", "", false},
	}
	for _, tc := range cases {
		c := Default()
		c.Paths.Deny = tc.deny
		pattern, denied := c.Denied(tc.path)
		if pattern != tc.pattern || denied != tc.denied {
			t.Errorf("deny %q, Denied(%q) = %q, %v; want %q, %v", tc.deny, tc.path, pattern, denied, tc.pattern, tc.denied)
		}
	}
}

func TestDefaultDenyList(t *testing.T) {
	c := Default()
	for _, p := range []string{"autocoder.toml", ".env", "web/.env.production", "tls/server.pem",
		"server.key", "home/.ssh/authorized_keys", ".ssh/id_rsa", "id_ed25519"} {
		if _, denied := c.Denied(p); !denied {
			t.Errorf("Default() does not deny %q", p)
		}
	}
	for _, p := range []string{"main.go", ".env.example", "docs/autocoder.toml", "keys.go", "README.md"} {
		if pattern, denied := c.Denied(p); denied {
			t.Errorf("Default() denies %q by %q", p, pattern)
		}
	}
}

// A bad pattern in a Config built by hand denies rather than allowing.
func TestDeniedBadPatternDenies(t *testing.T) {
	c := Default()
	c.Paths.Deny = []string{"[abc"}
	if p, denied := c.Denied("main.go"); !denied || p != "[abc" {
		t.Fatalf("Denied with a malformed pattern = %q, %v; want it to deny", p, denied)
	}
}

// FuzzDenied checks properties of the matcher: a path inside a denied
// directory is denied, denial ignores case, and a pattern that is the path
// itself (anchored, escaped) denies it.
func FuzzDenied(f *testing.F) {
	f.Add("*.pem", "a/b.pem", "x")
	f.Add("secrets/**", "secrets/a", "b")
	f.Add("**/x/**", "a/x/y", "z")
	f.Add("build/", "build/o", "p")
	f.Fuzz(func(t *testing.T, pattern, p, child string) {
		if _, err := compileDeny(pattern); err != nil || strings.HasPrefix(pattern, "!") {
			return
		}
		c := Config{Paths: Paths{Deny: []string{pattern}}}
		_, denied := c.Denied(p)
		if _, upper := c.Denied(strings.ToUpper(p)); upper != denied && strings.EqualFold(strings.ToUpper(p), p) {
			t.Fatalf("%q denies %q: %v, but its upper case: %v", pattern, p, denied, upper)
		}
		if denied && child != "" && !strings.ContainsAny(child, "/\\") && child != "." && child != ".." {
			if _, inside := c.Denied(p + "/" + child); !inside {
				t.Fatalf("%q denies %q but not %q inside it", pattern, p, p+"/"+child)
			}
		}
		if comps := splitPath(p); len(comps) > 0 && !strings.ContainsAny(p, `*?[\`) {
			self := Config{Paths: Paths{Deny: []string{"/" + strings.Join(comps, "/")}}}
			if _, d := self.Denied(p); !d && !strings.HasPrefix(comps[0], "..") {
				t.Fatalf("the anchored pattern of %q does not deny it", p)
			}
		}
	})
}
