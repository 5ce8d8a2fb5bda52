import { Type } from 'typebox';
import { CAPABILITIES } from '../capabilities.js';

/** The title names the value in errors: `"admin" is not a capability; use one of: …`. */
export const CapabilityName = Type.Union(CAPABILITIES.map((c) => Type.Literal(c)), { title: 'capability' });

export const ProjectParams = Type.Object({ id: Type.String({ description: 'Project id (UUID)' }) });
