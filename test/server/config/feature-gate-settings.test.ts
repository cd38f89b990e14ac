import { parseFlags } from '../../../server/config/flags';
import { FEATURE_GATES } from '../../../server/config/feature-gates';
import { featureEnabled } from '../../../server/config/feature-enabled';

function parsed(argv: string[]) {
  const result = parseFlags(argv);
  if (!('options' in result)) throw new Error('expected options');
  return result;
}

const gatesOf = (stage: string) =>
  Object.keys(FEATURE_GATES).filter(
    (gate) => FEATURE_GATES[gate].stage === stage && !['AllAlpha', 'AllBeta'].includes(gate),
  );

describe('--feature-gates as the reference settles it', () => {
  it('warns, in name order, for each GA or deprecated gate named, as the reference logs it', () => {
    const { warnings, options } = parsed([
      '--feature-gates=ExecProbeTimeout=false,AllowDNSOnlyNodeCSR=true',
      '--feature-gates=APIServerTracing=true,AllAlpha=false',
    ]);
    // Recorded from kube-apiserver v1.34.4 (feature_gate.go), less the klog header.
    expect(warnings).toEqual([
      'Setting GA feature gate APIServerTracing=true. It will be removed in a future release.',
      'Setting deprecated feature gate AllowDNSOnlyNodeCSR=true. It will be removed in a future release.',
      'Setting GA feature gate ExecProbeTimeout=false. It will be removed in a future release.',
    ]);
    expect(featureEnabled(options.featureGates, 'ExecProbeTimeout')).toBe(false);
  });

  it('gives no warning for alpha and beta gates, nor for none named', () => {
    expect(parsed(['--feature-gates=AllBeta=true,CBORServingAndStorage=true']).warnings).toEqual([]);
    expect(parsed([]).warnings).toEqual([]);
  });

  it('AllAlpha and AllBeta set every alpha and beta gate the flags do not name', () => {
    const { options } = parsed([
      '--feature-gates=AllAlpha=true,CBORServingAndStorage=false',
      '--feature-gates=AllBeta=true,DRAAdminAccess=false',
    ]);
    const alpha = gatesOf('ALPHA');
    const beta = gatesOf('BETA');
    expect(alpha.length).toBeGreaterThan(10);
    expect(beta.filter((gate) => !FEATURE_GATES[gate].default).length).toBeGreaterThan(3);
    for (const gate of alpha)
      expect([gate, featureEnabled(options.featureGates, gate)]).toEqual([gate, gate !== 'CBORServingAndStorage']);
    for (const gate of beta)
      expect([gate, featureEnabled(options.featureGates, gate)]).toEqual([gate, gate !== 'DRAAdminAccess']);
    // GA and deprecated gates keep their defaults.
    for (const gate of [...gatesOf('GA'), ...gatesOf('DEPRECATED')])
      expect([gate, featureEnabled(options.featureGates, gate)]).toEqual([gate, FEATURE_GATES[gate].default]);
  });

  it('AllBeta=false turns off the beta gates that are on by default, a named one kept', () => {
    const { options } = parsed(['--feature-gates=AllBeta=false,APIResponseCompression=true']);
    expect(featureEnabled(options.featureGates, 'DRAAdminAccess')).toBe(false);
    expect(featureEnabled(options.featureGates, 'APIResponseCompression')).toBe(true);
    expect(featureEnabled(options.featureGates, 'CBORServingAndStorage')).toBe(false);
  });

  it('accepts a locked gate set to the value it is locked to', () => {
    const { options, warnings } = parsed(['--feature-gates=APIServerTracing=true,AllowServiceLBStatusOnNonLB=false']);
    expect(options.featureGates).toEqual({ APIServerTracing: true, AllowServiceLBStatusOnNonLB: false });
    expect(warnings).toEqual([
      'Setting GA feature gate APIServerTracing=true. It will be removed in a future release.',
      'Setting deprecated feature gate AllowServiceLBStatusOnNonLB=false. It will be removed in a future release.',
    ]);
  });
});
