import { describe, expect, it } from 'vitest';
import { autoscalerChangeMatters, scalingStatus } from './scaling-status.ts';

const hpa = (status: object) =>
  ({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { generation: 1 }, status }) as never;

describe('scalingStatus', () => {
  it('says the replicas, the wish, the last scale and, held at a bound, why', () => {
    const limited = hpa({
      currentReplicas: 3,
      desiredReplicas: 3,
      lastScaleTime: '2026-11-26T23:00:00Z',
      conditions: [
        { type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
        {
          type: 'ScalingLimited',
          status: 'True',
          reason: 'TooManyReplicas',
          message: 'the desired replica count is more than the maximum replica count',
        },
      ],
    });
    expect(scalingStatus(limited)).toEqual({
      replicas: 3,
      desiredReplicas: 3,
      lastScaleTime: '2026-11-26T23:00:00Z',
      reason: 'TooManyReplicas',
      message: 'the desired replica count is more than the maximum replica count',
    });
    const within = hpa({
      currentReplicas: 1,
      desiredReplicas: 2,
      conditions: [
        {
          type: 'AbleToScale',
          status: 'True',
          reason: 'SucceededRescale',
          message: 'the HPA controller was able to update the target scale to 2',
        },
        {
          type: 'ScalingLimited',
          status: 'False',
          reason: 'DesiredWithinRange',
          message: 'the desired count is within the acceptable range',
        },
      ],
    });
    expect(scalingStatus(within)).toEqual({
      replicas: 1,
      desiredReplicas: 2,
      reason: 'SucceededRescale',
      message: 'the HPA controller was able to update the target scale to 2',
    });
    expect(scalingStatus(undefined)).toBeUndefined();
  });

  it('says first when the autoscaler cannot read a metric, such as requests in flight from an unreachable server', () => {
    const blind = hpa({
      currentReplicas: 1,
      desiredReplicas: 1,
      conditions: [
        {
          type: 'AbleToScale',
          status: 'True',
          reason: 'SucceededGetScale',
          message: 'the HPA controller was able to get the target scale',
        },
        {
          type: 'ScalingActive',
          status: 'False',
          reason: 'FailedGetExternalMetric',
          message: 'the HPA was unable to compute the replica count: unable to get external metric apps/s1-prometheus/...',
        },
        {
          type: 'ScalingLimited',
          status: 'True',
          reason: 'TooFewReplicas',
          message: 'the desired replica count is less than the minimum replica count',
        },
      ],
    });
    expect(scalingStatus(blind)).toMatchObject({
      reason: 'FailedGetExternalMetric',
      message: expect.stringContaining('unable to get external metric'),
    });
  });

  it('calls for a pass only when what the autoscaler reports changes, not for each metrics reading', () => {
    const reading = (cpu: number, replicas: number) =>
      hpa({
        currentReplicas: replicas,
        desiredReplicas: replicas,
        currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: cpu } } }],
      });
    expect(autoscalerChangeMatters(reading(40, 1), reading(55, 1))).toBe(false);
    expect(autoscalerChangeMatters(reading(140, 2), reading(55, 1))).toBe(true);
  });
});
