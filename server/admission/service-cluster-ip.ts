/**
 * Cluster IP allocation for Services on create. The reference allocates inside the Service
 * storage; here it is a mutating admission step so that it runs after defaulting and only for
 * real writes (a dry run gets no address, since nothing would hold it).
 */
import type { ClusterIPAllocator } from '../registry/allocators/cluster-ip';
import { invalid } from '../status/catalogue';
import type { AdmissionPlugin } from './types';

export function serviceClusterIPAllocation(allocator: ClusterIPAllocator): AdmissionPlugin {
  return {
    name: 'ServiceClusterIPAllocation',
    async admit(request) {
      if (request.operation !== 'CREATE' || request.dryRun || request.object === undefined) return;
      if (request.type.group !== '' || request.type.resource !== 'services' || request.subresource) return;
      const errors = await allocator.allocate(request.object);
      if (errors.length > 0) throw invalid({ group: '', kind: 'Service' }, request.name, errors);
    },
  };
}
