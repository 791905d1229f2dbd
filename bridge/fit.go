package bridge

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// fit encodes a reply within MaxReply: a browser drops a larger message
// and ends the connection. What is cut, in this order: the dry run's
// patch, the feedback, then the report; Truncated says what and how to see
// it whole.
func fit(rep Reply) []byte {
	b := encode(rep)
	if len(b) <= MaxReply {
		return b
	}
	var notes []string
	for _, f := range []struct {
		text *string
		what string
	}{
		{&rep.Patch, "the patch: to see it whole, save the answer to a file and run autocoder apply --dry-run FILE in the repository"},
		{&rep.Feedback, "the feedback: to get it whole, save the answer to a file and run autocoder apply --feedback - FILE in the repository"},
	} {
		total := len(*f.text)
		for len(b) > MaxReply && *f.text != "" {
			keep := len(*f.text) - (len(b) - MaxReply) - 4096
			*f.text = cut(*f.text, keep)
			b = encode(rep)
		}
		if len(*f.text) < total {
			notes = append(notes, fmt.Sprintf("%d of %d bytes of %s", len(*f.text), total, f.what))
		}
	}
	if len(b) > MaxReply && rep.Report != nil {
		rep.Report = nil
		b = encode(rep)
		notes = append(notes, "the report: see the steps with autocoder log, and each with autocoder show ID, in the repository")
	}
	// The summary's file names and the commits grow with the answer too
	// (a name of '&'s takes six bytes a character in JSON): an answer can
	// fill the reply with them alone.
	if len(b) > MaxReply && rep.Summary != nil && len(rep.Summary.Files) > 0 {
		n := len(rep.Summary.Files)
		sum := *rep.Summary
		sum.Files = []string{}
		rep.Summary = &sum
		b = encode(rep)
		notes = append(notes, fmt.Sprintf("none of the %d file names: autocoder apply --dry-run FILE lists them", n))
	}
	if len(b) > MaxReply && len(rep.Commits) > 0 {
		n := len(rep.Commits)
		rep.Commits = nil
		b = encode(rep)
		notes = append(notes, fmt.Sprintf("none of the %d commits: autocoder log lists them in the repository", n))
	}
	if len(b) > MaxReply {
		// What is left is the few words of the reply: cut them to a size
		// that always fits.
		for _, s := range []*string{&rep.ID, &rep.Type, &rep.Outcome, &rep.Repository, &rep.Error, &rep.Hint, &rep.Class, &rep.Message} {
			*s = cut(*s, 4096)
		}
		rep.Repositories = nil
	}
	rep.Truncated = "the reply was larger than the 1 MiB a browser accepts from a program; kept " + strings.Join(notes, "; ")
	return encode(rep)
}

// cut is the first part of s up to keep bytes, ended at a line end where
// there is one in its second half, never inside a character.
func cut(s string, keep int) string {
	if keep <= 0 {
		return ""
	}
	if keep >= len(s) {
		return s
	}
	for keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	if nl := strings.LastIndexByte(s[:keep], '\n'); nl >= keep/2 {
		keep = nl + 1
	}
	return s[:keep]
}

func encode(rep Reply) []byte {
	b, err := json.Marshal(rep)
	if err != nil {
		// Every field is a string, a number or raw JSON this package
		// wrote: this cannot happen, and the extension is still answered.
		b, _ = json.Marshal(Reply{ID: rep.ID, Type: rep.Type, Outcome: "error", Error: "the reply could not be encoded: " + err.Error()})
	}
	return b
}
