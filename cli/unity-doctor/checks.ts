/** One line of `sbeval unity doctor`: what was checked, the verdict, what was seen, and what to do when it failed. */
export interface DoctorCheck {
  check: string;
  verdict: 'pass' | 'fail' | 'not run';
  detail: string;
  fix?: string;
}

export const pass = (check: string, detail: string): DoctorCheck => ({ check, verdict: 'pass', detail });
export const fail = (check: string, detail: string, fix: string): DoctorCheck => ({ check, verdict: 'fail', detail, fix });
export const notRun = (check: string, why: string): DoctorCheck => ({ check, verdict: 'not run', detail: why });
