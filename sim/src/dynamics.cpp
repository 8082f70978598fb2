// Explicit instantiations for double: the common case compiles once, here.
#include "vcloe/sim/dynamics.hpp"

namespace vcloe::sim {

template bool compute_kinematics<double>(const RobotModel&, const Vec6d&, const Vec6d&, Kinematics<double>&);
template void compute_dynamics_terms<double>(const RobotModel&, const Kinematics<double>&, const Vec6d&,
                                             const XiVector<double>&, DynamicsTerms<double>&);
template bool inverse_dynamics<double>(const RobotModel&, const Vec6d&, const Vec6d&, const Vec6d&,
                                       const XiVector<double>&, Vec6d&);
template bool forward_dynamics<double>(const RobotModel&, const Vec6d&, const Vec6d&, const Vec6d&,
                                       const XiVector<double>&, Vec6d&);
template bool regressor<double>(const RobotModel&, const Vec6d&, const Vec6d&, const Vec6d&, Regressor<double>&);

}  // namespace vcloe::sim
