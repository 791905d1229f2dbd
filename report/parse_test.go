package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/autocoder/autocoder/protocol"
	"github.com/autocoder/autocoder/step"
)

// parse --format json gives a script the content's exact bytes: text as a
// JSON string, binary (not UTF-8, or a NUL byte) as base64 marked so.
func TestParseJSONContentRoundTrips(t *testing.T) {
	contents := [][]byte{[]byte("héllo\n\t\"x\"\n"), []byte("caf\xe9"), []byte("a\x00b"), {}}
	var items []step.Item
	for _, c := range contents {
		items = append(items, step.Item{Step: &step.Step{ID: "s", Ops: []step.Op{{Kind: step.OpWrite, Path: "f", Content: c, HasContent: true}}}})
	}
	var b bytes.Buffer
	if err := ParseJSON(&b, items, protocol.Reading{Encoding: "utf-8"}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Items []struct {
			Step struct {
				Ops []struct {
					Content  *string `json:"content"`
					Encoding string  `json:"encoding"`
				} `json:"ops"`
			} `json:"step"`
		} `json:"items"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for i, c := range contents {
		op := got.Items[i].Step.Ops[0]
		if op.Content == nil {
			t.Fatalf("content %q: absent", c)
		}
		back := []byte(*op.Content)
		wantEnc := ""
		if i == 1 || i == 2 {
			wantEnc = "base64"
		}
		if op.Encoding != wantEnc {
			t.Errorf("content %q: encoding %q, want %q", c, op.Encoding, wantEnc)
		}
		if op.Encoding == "base64" {
			var err error
			if back, err = base64.StdEncoding.DecodeString(*op.Content); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(back, c) {
			t.Errorf("content %q came back as %q", c, back)
		}
	}
}
