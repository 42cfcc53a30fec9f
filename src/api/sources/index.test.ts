import { describe, expect, it } from 'vitest';
import { awaitedInputOf, isBuiltSource, offerRefusal, sourceKind, sourceNames, sourceOnlyMembers, sourcesWhere } from './index.ts';

describe('source kinds', () => {
  it('each kind requires and awaits only members it may set', () => {
    for (const name of sourceNames) {
      const kind = sourceKind(name)!;
      for (const path of kind.required) expect(kind.members, `${name} requires ${path}`).toContain(path);
      if (kind.awaits) expect(kind.members, `${name} awaits ${kind.awaits.member}`).toContain(kind.awaits.member);
    }
  });

  it('a member some kinds take is refused for the others, with the reason where one is needed', () => {
    const imageUri = sourceOnlyMembers().find((member) => member.path === 'sourceRevisionConfig.imageUri');
    expect(imageUri).toEqual({
      path: 'sourceRevisionConfig.imageUri',
      sources: ['external_docker', 'internal_docker'],
      why: 'the build makes the image',
    });
    const install = sourceOnlyMembers().find((member) => member.path === 'sourceConfig.installCommand');
    expect(install).toEqual({ path: 'sourceConfig.installCommand', sources: ['codehost', 'internal_source'] });
  });

  it('says which kinds are built, wait, and are offered push tokens and upload URLs', () => {
    expect(sourceNames.filter(isBuiltSource)).toEqual(['codehost', 'internal_source']);
    expect(sourcesWhere((kind) => kind.revisionSource)).toEqual(['external_docker', 'internal_docker', 'internal_source']);
    expect(offerRefusal('internal_docker', 'pushToken', 'Push tokens')).toBeUndefined();
    expect(offerRefusal('codehost', 'uploadUrl', 'Upload URLs')).toBe(
      "Upload URLs are only available for internal_source deployments; this deployment's source is codehost.",
    );
    expect(awaitedInputOf({ source: 'internal_docker', sourceRevisionConfig: {} })?.reason).toBe('AwaitingImage');
    expect(awaitedInputOf({ source: 'internal_docker', sourceRevisionConfig: { imageUri: 'r/i:1' } })).toBeUndefined();
    expect(awaitedInputOf({ source: 'internal_source' })?.reason).toBe('AwaitingSource');
    expect(awaitedInputOf({ source: 'external_docker' })).toBeUndefined();
  });
});
