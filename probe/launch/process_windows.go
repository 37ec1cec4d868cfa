//go:build windows

package launch

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows has no process groups a signal can reach: each server runs in a
// job object instead, created with kill-on-job-close, so that ending the
// job (or the probe itself dying, which closes the handle) takes the
// server and everything it spawned.
var jobs = struct {
	sync.Mutex
	byPid map[int]windows.Handle
}{byPid: map[int]windows.Handle{}}

// groupAttr starts the child suspended, so that it cannot spawn anything
// outside the job before startedGroup puts it in one, and in a new console
// process group, so the probe's Ctrl+C is not delivered to it twice.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
}

// startedGroup puts the just-started, suspended process pid in a new job
// object and lets it run. On failure the process is killed: a server the
// probe cannot own must not run.
func startedGroup(pid int) error {
	err := adopt(pid)
	if err != nil {
		if h, e := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid)); e == nil {
			_ = windows.TerminateProcess(h, 1)
			_ = windows.CloseHandle(h)
		}
		return fmt.Errorf("owning the server's process tree with a job object: %w", err)
	}
	return resumeThreads(pid)
}

func adopt(pid int) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		_ = windows.CloseHandle(job)
		return err
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		_ = windows.CloseHandle(job)
		return err
	}
	jobs.Lock()
	jobs.byPid[pid] = job
	jobs.Unlock()
	return nil
}

// resumeThreads resumes the threads of a process started suspended: Go's
// os.StartProcess does not keep the main thread's handle, so they are
// found by a snapshot.
func resumeThreads(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("resuming the server: %w", err)
	}
	defer windows.CloseHandle(snap)
	var te windows.ThreadEntry32
	te.Size = uint32(unsafe.Sizeof(te))
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			continue
		}
		if _, err := windows.ResumeThread(th); err == nil {
			resumed++
		}
		_ = windows.CloseHandle(th)
	}
	if resumed == 0 {
		return fmt.Errorf("resuming the server: no thread of process %d could be resumed", pid)
	}
	return nil
}

func jobOf(pid int) (windows.Handle, bool) {
	jobs.Lock()
	defer jobs.Unlock()
	j, ok := jobs.byPid[pid]
	return j, ok
}

// signalGroup maps the Unix signals the probe sends onto the job: 0 asks
// whether it still runs, SIGTERM and SIGKILL both end it, since a process
// without a console has no gentler way to be asked to stop. Any other
// signal is refused with an error.
func signalGroup(pgid int, sig syscall.Signal) error {
	job, ok := jobOf(pgid)
	if !ok {
		return fmt.Errorf("process %d: no job object (already reaped)", pgid)
	}
	switch sig {
	case 0:
		if !groupAlive(pgid) {
			return fmt.Errorf("process %d: no process left", pgid)
		}
		return nil
	case syscall.SIGTERM, syscall.SIGKILL:
		return windows.TerminateJobObject(job, 1)
	default:
		return fmt.Errorf("signal %v is not supported on Windows", sig)
	}
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, which
// golang.org/x/sys/windows does not define.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

// groupAlive reports whether a process of the job is still running. Once
// none is, the job's handle is closed: nothing is left to own.
func groupAlive(pgid int) bool {
	job, ok := jobOf(pgid)
	if !ok {
		return false
	}
	var acct jobAccounting
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&acct)), uint32(unsafe.Sizeof(acct)), nil); err != nil {
		return false
	}
	if acct.ActiveProcesses > 0 {
		return true
	}
	jobs.Lock()
	delete(jobs.byPid, pgid)
	jobs.Unlock()
	_ = windows.CloseHandle(job)
	return false
}
