package bridge

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/autocoder/autocoder/step"
)

// Native messaging frames a message as a 32-bit length in the machine's
// byte order, then that many bytes of UTF-8 JSON, in both directions.

// MaxReply is the largest message a browser accepts from a host (1 MiB);
// a reply is cut to fit (see fit).
const MaxReply = 1 << 20

// MaxRequest caps a message from the extension: a model's answer with room
// to spare (autocoder.toml's max_response_bytes still applies to the
// answer itself). A larger frame is refused without reading it.
const MaxRequest = 16 << 20

// TooLargeError is a frame longer than MaxRequest.
type TooLargeError struct{ Size uint32 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the message is %d bytes, more than the %d a request may hold", e.Size, MaxRequest)
}

// Hint says what to do.
func (e *TooLargeError) Hint() string {
	return "apply an answer this large from a file: save it and run autocoder apply FILE in the repository"
}

// Class is refused: the request is not read.
func (e *TooLargeError) Class() step.Class { return step.ClassRefused }

// readFrame reads one message. io.EOF: the browser closed the pipe between
// messages; io.ErrUnexpectedEOF: it closed in the middle of one.
func readFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.NativeEndian.Uint32(hdr[:])
	if n > MaxRequest {
		return nil, &TooLargeError{Size: n}
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// writeFrame writes one message.
func writeFrame(w io.Writer, msg []byte) error {
	var hdr [4]byte
	binary.NativeEndian.PutUint32(hdr[:], uint32(len(msg)))
	if _, err := w.Write(append(hdr[:], msg...)); err != nil {
		return err
	}
	return nil
}
