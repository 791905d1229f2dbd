package shellwords

import (
	"errors"
	"fmt"
)

// Command is Simple for the program policy and its allow list: the words of
// a command line as /bin/sh would run them, with an empty line read as no
// words (which the callers refuse with their own message). A control
// character other than a tab or a new line is refused first: the shell
// parser reads a carriage return as a blank where /bin/sh keeps it in the
// word, so the words compared would not be the words run, and a terminal
// showing the command would hide what precedes it.
func Command(line string) ([]string, error) {
	for i := 0; i < len(line); i++ {
		if c := line[i]; c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return nil, fmt.Errorf("the control character %q at byte %d", c, i+1)
		}
	}
	words, err := Simple(line)
	var ns *NotSimpleError
	if errors.As(err, &ns) && ns.Kind == KindEmpty {
		return nil, nil
	}
	return words, err
}
