/**
 * `npm run bench:scheduler`: kube-scheduler's SchedulingBasic-style benchmark on 5,000 mixed nodes, in
 * process (no API server, no kubelets), counting bound pods every second. See src/scheduler/bench.ts.
 */
import { main } from '../src/scheduler/bench.js';

main();
