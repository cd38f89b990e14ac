/**
 * The flow-control benchmark: what API Priority and Fairness adds to each request, in process,
 * against the plain in-flight limit it replaces. Each stage runs on a stand-in request and
 * response (the chain's own objects are not needed to time the stage), with the reference's
 * bootstrap configuration: an administrator's request (exempt, matched by the first schema),
 * an ordinary user's (global-default, matched after scanning every other schema) and a
 * ServiceAccount's (workload-low). Figures are the mean over many requests run one at a time.
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler, Response } from 'express';
import { Registry } from 'prom-client';
import {
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../api/flowcontrol-bootstrap';
import { FlowControl } from '../server/flowcontrol/flow-control';
import type { UserInfo } from '../api/user-info';
import type { RequestInfo } from '../server/request/request-info';
import { withInflightLimit } from '../server/http/with-inflight-limit';
import { withPriorityAndFairness } from '../server/http/with-priority-and-fairness';
import type { Benchmark, ResultRow } from './benchmark';

const REQUESTS = 200_000;
const WARM_UP = 20_000;

const INFO: RequestInfo = {
  isResourceRequest: true,
  path: '/api/v1/namespaces/default/pods',
  verb: 'list',
  apiPrefix: 'api',
  apiGroup: '',
  apiVersion: 'v1',
  namespace: 'default',
  resource: 'pods',
  subresource: '',
  name: '',
  parts: ['namespaces', 'default', 'pods'],
};

const USERS: ReadonlyArray<[string, UserInfo]> = [
  ['system:masters (exempt)', { name: 'admin', groups: ['system:masters', 'system:authenticated'] }],
  ['ordinary user (global-default)', { name: 'alice', groups: ['system:authenticated'] }],
  [
    'service account (workload-low)',
    {
      name: 'system:serviceaccount:app:default',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:app', 'system:authenticated'],
    },
  ],
];

/** Mean µs per request of `stage`, each request released (response closed) before the next. */
function microsPerRequest(stage: RequestHandler, user: UserInfo): number {
  const run = (count: number) => {
    for (let i = 0; i < count; i++) {
      const res = Object.assign(new EventEmitter(), {
        setHeader: () => undefined,
        writeHead: () => undefined,
      }) as unknown as Response;
      const req = {
        requestInfo: INFO,
        user,
        deadline: Date.now() + 60_000,
        resume: () => undefined,
      } as unknown as Request;
      (res as { req?: Request }).req = req;
      let passed = false;
      void stage(req, res, () => (passed = true));
      if (!passed) throw new Error('the stage did not pass the request on');
      res.emit('close');
    }
  };
  run(WARM_UP);
  const begin = performance.now();
  run(REQUESTS);
  return ((performance.now() - begin) * 1000) / REQUESTS;
}

export const flowControlBenchmark: Benchmark = {
  name: 'flow-control',
  description: 'µs per request of API Priority and Fairness and of the in-flight limit it replaces',
  async run({ report, log }) {
    const flowControl = new FlowControl({ serverConcurrencyLimit: 600, registry: new Registry() });
    flowControl.reconfigure(
      [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS],
      [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS],
    );
    const priorityAndFairness = withPriorityAndFairness({ flowControl });
    const inflightLimit = withInflightLimit({ maxReadOnly: 400, maxMutating: 200 });
    const rows: ResultRow[] = [];
    for (const [label, user] of USERS) {
      log(label);
      rows.push({
        metric: `priority and fairness, ${label}`,
        value: Number(microsPerRequest(priorityAndFairness, user).toFixed(2)),
        unit: 'µs/request',
        note: `${REQUESTS} requests`,
      });
      rows.push({
        metric: `in-flight limit, ${label}`,
        value: Number(microsPerRequest(inflightLimit, user).toFixed(2)),
        unit: 'µs/request',
        note: `${REQUESTS} requests`,
      });
    }
    report({ title: 'Cost of the limiting stage per request (in process, one at a time)', rows });
  },
};
