//go:build windows

package runner

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// shellPath is the shell that runs Spec.Shell commands: a POSIX sh on
// PATH (Git for Windows ships one in usr\bin), since the commands a model
// writes are sh's. cmd.exe reads them differently, so it is not a stand-in.
func shellPath() (string, error) {
	p, err := exec.LookPath("sh")
	if err != nil {
		return "", fmt.Errorf("no sh on PATH (add Git for Windows' usr\\bin to PATH to run shell commands): %w", err)
	}
	return p, nil
}

// groupPrep has nothing to carry on Windows: the job object holds every
// process the program starts, also one that leaves its console group.
type groupPrep struct{}

func (groupPrep) env() []string { return nil }

// prepareGroup starts the program suspended, so that it is in its job
// object before it can start anything, and in a console process group of
// its own, so that a Ctrl-Break reaches it and its children only.
func prepareGroup(cmd *exec.Cmd) groupPrep {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP,
	}
	return groupPrep{}
}

// job is the job object that holds the program and everything it starts:
// terminating the job ends them all, and closing its last handle (also
// when autocoder dies) does too (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE).
type job struct {
	h, proc windows.Handle
	pid     uint32
}

// startGroup puts the suspended program into a new job object, then lets
// it run.
func startGroup(cmd *exec.Cmd, _ groupPrep) (group, error) {
	pid := uint32(cmd.Process.Pid)
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("create a job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("set up the job object: %w", err)
	}
	proc, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.SYNCHRONIZE, false, pid)
	if err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("open the program's process: %w", err)
	}
	j := &job{h: h, proc: proc, pid: pid}
	if err := windows.AssignProcessToJobObject(h, proc); err != nil {
		j.release()
		return nil, fmt.Errorf("put the program into its job object: %w", err)
	}
	if err := resumeProcess(pid); err != nil {
		j.kill()
		j.release()
		return nil, err
	}
	return j, nil
}

// resumeProcess resumes the threads of a process started suspended (it
// has one, its main thread).
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("resume the program: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("resume the program: %w", err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume the program: %w", err)
		}
		resumed++
	}
	if resumed == 0 {
		return errors.New("resume the program: it has no thread")
	}
	return nil
}

// waitExited waits for the program's process handle: a handle keeps the
// process object, so nothing is reaped, and the job outlives it anyway.
func (j *job) waitExited() { windows.WaitForSingleObject(j.proc, windows.INFINITE) }

// stop sends Ctrl-Break to the program's console process group, the
// nearest Windows has to SIGTERM; a program without a console ignores it
// and is terminated after the grace.
func (j *job) stop() { _ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, j.pid) }

// kill terminates every process in the job.
func (j *job) kill() { _ = windows.TerminateJobObject(j.h, 1) }

// afterWait has nothing left to do: kill terminated the whole job.
func (j *job) afterWait() {}

// outcome is the program's exit code; a program that could not start
// failed at Start already.
func (j *job) outcome(ps *os.ProcessState) (int, error) { return exitCode(ps), nil }

func (j *job) release() {
	windows.CloseHandle(j.proc)
	windows.CloseHandle(j.h)
}
