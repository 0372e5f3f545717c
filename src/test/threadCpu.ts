/**
 * How long a process's event loop is held, measured in CPU time rather than answer times: on a busy
 * machine an answer can wait for a core whatever the process does, but the CPU a thread uses is its own
 * (issue 33 point 4: no test asserts what fits in a wall-clock window). Linux /proc; USER_HZ ticks.
 */
import { readFileSync } from 'node:fs';

/** USER_HZ: the unit of /proc's CPU times on Linux. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, in ms) and nice value from a /proc stat file: `/proc/PID/stat` for a whole
 * process (its ended threads included), `/proc/PID/task/TID/stat` for one thread.
 */
export function procStat(path: string): { cpuMs: number; nice: number } {
  const stat = readFileSync(path, 'utf8');
  // After the command name in parentheses: state is field 3, utime 14, stime 15, nice 19.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND,
    nice: Number(fields[16]),
  };
}

/** CPU time (user + system) one thread of a process has used so far, in ms; the main thread's id is the pid. */
export function threadCpuMs(pid: number = process.pid, tid: number = pid): number {
  return procStat(`/proc/${pid}/task/${tid}/stat`).cpuMs;
}

/**
 * Watches this process's main thread: a timer due every millisecond reads the thread's CPU time, so the
 * CPU used between two of its turns is the longest the event loop was held (within a tick of 10 ms, the
 * kernel's accounting). `stop` ends the watch and answers the longest hold, in ms of CPU.
 */
export function watchMainThread(): { stop: () => number } {
  let last = threadCpuMs();
  let longest = 0;
  const timer = setInterval(() => {
    const now = threadCpuMs();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(longest, threadCpuMs() - last);
    },
  };
}
